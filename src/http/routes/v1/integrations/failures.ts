/**
 * How integration routes answer for what they cannot do: another account's (or no) integration is
 * a 404; the platform's refusals and failures are the API's documented 409 and 502.
 */
import { IntegrationDisconnected } from '../../../../integrations/integration-service.ts';
import { ProviderError, ProviderScopeMissing } from '../../../../integrations/ports.ts';
import { ApiError } from '../../../errors.ts';

export function integrationNotFound(): ApiError {
  return new ApiError('not_found', { message: 'No such integration' });
}

/** The platform's refusals and failures as the API's errors; anything else is ours (500). */
export function providerFailure(error: unknown): unknown {
  if (error instanceof IntegrationDisconnected) {
    return new ApiError('integration_disconnected', { message: error.message });
  }
  if (error instanceof ProviderScopeMissing) {
    const scopes = error.scopes.length > 0 ? error.scopes.join(', ') : 'a permission';
    return new ApiError('integration_scope_missing', {
      message: `The platform did not grant this integration the scope ${scopes} that this needs: add it to the app (or connect again granting it) and try again`,
    });
  }
  if (error instanceof ProviderError) {
    return new ApiError('provider_unavailable', {
      message: `The email platform did not answer as expected (${error.status ?? 'no answer'}); try again in a few minutes`,
    });
  }
  return error;
}

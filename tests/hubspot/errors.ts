/**
 * HubSpot's error body, `{"status":"error","message","correlationId","category"}` (with
 * `errors`/`context` where the docs show them), thrown by routes and written by the server.
 */
import { randomUUID } from 'node:crypto';

export class HsError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return {
      status: 'error',
      message: this.message,
      correlationId: randomUUID(),
      category: this.category,
      ...this.extra,
    };
  }
}

export const notFound = (message = 'Resource not found') => new HsError(404, 'OBJECT_NOT_FOUND', message);
export const invalid = (message: string, extra: Record<string, unknown> = {}) =>
  new HsError(400, 'VALIDATION_ERROR', message, extra);
export const unauthorized = () =>
  new HsError(
    401,
    'INVALID_AUTHENTICATION',
    'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
  );
export const expired = () =>
  new HsError(
    401,
    'EXPIRED_AUTHENTICATION',
    'The OAuth token used to make this call expired 0 second(s) ago.',
  );
export const missingScopes = (scopes: string[]) =>
  new HsError(
    403,
    'MISSING_SCOPES',
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    {
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredGranularScopes: scopes },
        },
      ],
    },
  );

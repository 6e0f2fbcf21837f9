/**
 * POST /api/v1/verify: one address.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { VerificationService } from '../../../usage/verification-service.ts';
import { quotaExceeded } from '../../errors.ts';
import { callerOf } from '../../plugins/auth.ts';
import { setQuotaHeaders } from '../../quota-headers.ts';
import { type VerifyBody, verifyBodySchema } from '../../schemas/requests.ts';
import { apiErrorResponses, okResponse } from '../../schemas/responses.ts';

export interface VerifyRouteDeps {
  service: Pick<VerificationService, 'verifyOne'>;
}

const schema = {
  tags: ['verification'],
  summary: 'Verify one address',
  description:
    'Charges one unit of the monthly quota (given back when our own DNS lookup failed: `reason` ' +
    '`dns_error`). A malformed address is not an error: it is a 200 with status INVALID_SYNTAX.',
  security: [{ bearerAuth: [] }],
  body: verifyBodySchema,
  response: {
    200: okResponse('VerificationResult', 'The verification result.'),
    ...apiErrorResponses({
      400: ['bad_request'],
      401: ['unauthorized'],
      413: ['payload_too_large'],
      422: ['validation_failed'],
      429: ['rate_limited', 'quota_exceeded'],
      500: ['internal_error'],
    }),
  },
};

/** The single-address route. */
export const verifyRoute: FastifyPluginAsync<VerifyRouteDeps> = async (app, { service }) => {
  app.post<{ Body: VerifyBody }>('/verify', { schema }, async (request, reply) => {
    const { email } = request.body;
    request.log.debug({ email }, 'verify');
    const outcome = await service.verifyOne(callerOf(request), email);
    setQuotaHeaders(reply, outcome.quota);
    if (outcome.kind === 'quota_exceeded') throw quotaExceeded(outcome.quota);
    return outcome.result;
  });
};

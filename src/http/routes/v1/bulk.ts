/**
 * POST /api/v1/verify/bulk: 1 to 100 addresses.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { VerificationService } from '../../../usage/verification-service.ts';
import { bulkQuotaExceeded, quotaExceeded } from '../../errors.ts';
import { callerOf } from '../../plugins/auth.ts';
import { setQuotaHeaders } from '../../quota-headers.ts';
import { type BulkBody, bulkBodySchema } from '../../schemas/requests.ts';
import { apiErrorResponses, okResponse } from '../../schemas/responses.ts';

export interface BulkRouteDeps {
  service: Pick<VerificationService, 'verifyBulk'>;
}

const schema = {
  tags: ['verification'],
  summary: 'Verify up to 100 addresses',
  description:
    'Consumes one unit of the monthly bulk-request quota, and one verification unit per unique ' +
    'normalized address (duplicates are verified and charged once). When fewer units remain than ' +
    'needed, the first unique addresses that fit are processed and every other entry is listed in ' +
    '`unprocessed`, in order.',
  security: [{ bearerAuth: [] }],
  body: bulkBodySchema,
  response: {
    200: okResponse('BulkResponse', 'Results in submitted order, and the entries left unprocessed.'),
    ...apiErrorResponses({
      400: ['bad_request'],
      401: ['unauthorized'],
      413: ['payload_too_large'],
      422: ['validation_failed'],
      429: ['rate_limited', 'quota_exceeded', 'bulk_quota_exceeded'],
      500: ['internal_error'],
    }),
  },
};

/** The bulk route. */
export const bulkRoute: FastifyPluginAsync<BulkRouteDeps> = async (app, { service }) => {
  app.post<{ Body: BulkBody }>('/verify/bulk', { schema }, async (request, reply) => {
    const { emails } = request.body;
    request.log.debug({ emails }, 'verify bulk');
    const outcome = await service.verifyBulk(callerOf(request), emails);
    setQuotaHeaders(reply, outcome.quota);
    if (outcome.kind === 'quota_exceeded') throw quotaExceeded(outcome.quota);
    if (outcome.kind === 'bulk_quota_exceeded') throw bulkQuotaExceeded(outcome.quota);
    return { results: outcome.results, unprocessed: outcome.unprocessed };
  });
};

/**
 * The per-key rate limit, right after auth (DESIGN §1 order: auth → rate limit → body → ...), and
 * the accounting headers every authenticated response carries. Responses that charged nothing
 * (4xx, 429 rate_limited, 5xx) get the quota as it stands.
 */

import fp from 'fastify-plugin';
import type { RateLimiter } from '../../usage/ports.ts';
import type { VerificationService } from '../../usage/verification-service.ts';
import { rateLimited } from '../errors.ts';
import { quotaHeaders, rateLimitHeaders } from '../quota-headers.ts';

export interface RateLimitDeps {
  rateLimiter: RateLimiter;
  service: Pick<VerificationService, 'quotaState'>;
}

/** Adds the rate-limit hook (onRequest, after auth) and the quota-header hook (onSend). */
export const rateLimitPlugin = fp<RateLimitDeps>(async (app, { rateLimiter, service }) => {
  app.addHook('onRequest', async (request, reply) => {
    if (request.caller === null) return;
    const decision = await rateLimiter.take(request.caller.keyId, request.caller.limits.ratePerSecond);
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) throw rateLimited(decision);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.caller === null || reply.hasHeader('x-quota-limit')) return payload;
    try {
      reply.headers(quotaHeaders(await service.quotaState(request.caller)));
    } catch (error) {
      // The answer matters more than its headers: send it without them.
      request.log.warn({ err: error }, 'quota headers unavailable');
    }
    return payload;
  });
});

/**
 * The rate limit, right after auth (the documented order: auth → rate limit → body → ...): the
 * account's bucket, which all its keys and its dashboard share, and the key's own when it has a
 * lower rate; and
 * the accounting headers every authenticated response carries. Responses that charged nothing
 * (4xx, 429 rate_limited, 5xx) get the quota as it stands.
 */

import fp from 'fastify-plugin';
import type { RateDecision, RateLimiter } from '../../usage/ports.ts';
import type { Caller, VerificationService } from '../../usage/verification-service.ts';
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
    const decision = await takeToken(rateLimiter, request.caller);
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

/**
 * One token from the key's bucket (when it has a lower rate of its own), then from the account's;
 * the headers show the tighter of the two.
 */
async function takeToken(rateLimiter: RateLimiter, caller: Caller): Promise<RateDecision> {
  const accountRate = caller.limits.ratePerSecond;
  const keyRate = caller.caps.rateLimit;
  if (keyRate === null || keyRate >= accountRate)
    return rateLimiter.take(`account:${caller.accountId}`, accountRate);
  const onKey = await rateLimiter.take(`key:${caller.keyId}`, keyRate);
  if (!onKey.allowed) return onKey;
  const onAccount = await rateLimiter.take(`account:${caller.accountId}`, accountRate);
  return !onAccount.allowed || onAccount.remaining < onKey.remaining ? onAccount : onKey;
}

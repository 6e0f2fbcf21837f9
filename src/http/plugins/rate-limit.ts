/**
 * The rate limit, right after auth (the documented order: auth → rate limit → body → ...): the
 * account's bucket, which all its keys and its dashboard share, and the key's own when it has a
 * lower rate; and
 * the accounting headers every authenticated response carries. Responses that charged nothing
 * (4xx, 429 rate_limited, 5xx) get the quota as it stands.
 */

import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { RateDecision, RateLimiter } from '../../usage/ports.ts';
import type { Caller, VerificationService } from '../../usage/verification-service.ts';
import { type ApiError, rateLimited } from '../errors.ts';
import { quotaHeaders, rateLimitHeaders } from '../quota-headers.ts';

export interface RateLimitDeps {
  rateLimiter: RateLimiter;
  service: Pick<VerificationService, 'quotaState'>;
}

/** Adds the rate-limit hook (onRequest, after auth) and the quota-header hook (onSend). */
export const rateLimitPlugin = fp<RateLimitDeps>(async (app, { rateLimiter, service }) => {
  // Callback hooks: with buckets in this process the token is taken in the same turn, and a
  // response that already carries its quota passes on at once, with no promise made for either.
  app.addHook('onRequest', (request, reply, done) => {
    const caller = request.caller;
    if (caller === null) {
      done();
      return;
    }
    const now = takeTokenNow(rateLimiter, caller);
    if (now !== undefined) {
      done(applyDecision(reply, now));
      return;
    }
    takeToken(rateLimiter, caller).then((decision) => done(applyDecision(reply, decision)), done);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.caller === null || reply.hasHeader('x-quota-limit')) {
      done(null, payload);
      return;
    }
    service.quotaState(request.caller).then(
      (quota) => {
        reply.headers(quotaHeaders(quota));
        done(null, payload);
      },
      (error: unknown) => {
        // The answer matters more than its headers: send it without them.
        request.log.warn({ err: error }, 'quota headers unavailable');
        done(null, payload);
      },
    );
  });
});

/** Sets the rate-limit headers; the refusal when the bucket was empty. */
function applyDecision(reply: FastifyReply, decision: RateDecision): ApiError | undefined {
  reply.headers(rateLimitHeaders(decision));
  return decision.allowed ? undefined : rateLimited(decision);
}

/**
 * One token from the key's bucket (when it has a lower rate of its own), then from the account's;
 * the headers show the tighter of the two.
 */
async function takeToken(rateLimiter: RateLimiter, caller: Caller): Promise<RateDecision> {
  const accountRate = caller.limits.ratePerSecond;
  const keyRate = caller.caps.rateLimit;
  if (keyRate === null || keyRate >= accountRate) return rateLimiter.take(accountBucket(caller), accountRate);
  const onKey = await rateLimiter.take(`key:${caller.keyId}`, keyRate);
  if (!onKey.allowed) return onKey;
  const onAccount = await rateLimiter.take(accountBucket(caller), accountRate);
  return tighter(onKey, onAccount);
}

/** {@link takeToken} at once, from a limiter that can; undefined when it cannot. */
function takeTokenNow(rateLimiter: RateLimiter, caller: Caller): RateDecision | undefined {
  if (rateLimiter.takeNow === undefined) return undefined;
  const accountRate = caller.limits.ratePerSecond;
  const keyRate = caller.caps.rateLimit;
  if (keyRate === null || keyRate >= accountRate)
    return rateLimiter.takeNow(accountBucket(caller), accountRate);
  const onKey = rateLimiter.takeNow(`key:${caller.keyId}`, keyRate);
  if (!onKey.allowed) return onKey;
  return tighter(onKey, rateLimiter.takeNow(accountBucket(caller), accountRate));
}

function tighter(onKey: RateDecision, onAccount: RateDecision): RateDecision {
  return !onAccount.allowed || onAccount.remaining < onKey.remaining ? onAccount : onKey;
}

/** The account's bucket name, made once per caller (every request of a key asks for it). */
const accountBuckets = new WeakMap<Caller, string>();
function accountBucket(caller: Caller): string {
  let name = accountBuckets.get(caller);
  if (name === undefined) {
    name = `account:${caller.accountId}`;
    accountBuckets.set(caller, name);
  }
  return name;
}

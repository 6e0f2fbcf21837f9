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

/** A bucket a request takes its token from. */
interface Bucket {
  name: string;
  ratePerSecond: number;
}

/**
 * The buckets a request takes from: the key's own when it has a lower rate, then the account's,
 * which all its keys and its dashboard share; the headers show the tighter of the two.
 */
function bucketsOf(caller: Caller): { key: Bucket | null; account: Bucket } {
  const account = { name: `account:${caller.accountId}`, ratePerSecond: caller.limits.ratePerSecond };
  const keyRate = caller.caps.rateLimit;
  const key =
    keyRate === null || keyRate >= account.ratePerSecond
      ? null
      : { name: `key:${caller.keyId}`, ratePerSecond: keyRate };
  return { key, account };
}

/** One token from the caller's buckets (bucketsOf). */
async function takeToken(rateLimiter: RateLimiter, caller: Caller): Promise<RateDecision> {
  const { key, account } = bucketsOf(caller);
  if (key === null) return rateLimiter.take(account.name, account.ratePerSecond);
  const onKey = await rateLimiter.take(key.name, key.ratePerSecond);
  if (!onKey.allowed) return onKey;
  return tighter(onKey, await rateLimiter.take(account.name, account.ratePerSecond));
}

/** {@link takeToken} at once, from a limiter that can; undefined when it cannot. */
function takeTokenNow(rateLimiter: RateLimiter, caller: Caller): RateDecision | undefined {
  if (rateLimiter.takeNow === undefined) return undefined;
  const { key, account } = bucketsOf(caller);
  if (key === null) return rateLimiter.takeNow(account.name, account.ratePerSecond);
  const onKey = rateLimiter.takeNow(key.name, key.ratePerSecond);
  if (!onKey.allowed) return onKey;
  return tighter(onKey, rateLimiter.takeNow(account.name, account.ratePerSecond));
}

function tighter(onKey: RateDecision, onAccount: RateDecision): RateDecision {
  return !onAccount.allowed || onAccount.remaining < onKey.remaining ? onAccount : onKey;
}

/**
 * The rate-limit and quota headers every authenticated response carries.
 */
import type { FastifyReply } from 'fastify';
import type { RateDecision } from '../usage/ports.ts';
import type { QuotaState } from '../usage/verification-service.ts';

/** `X-Quota-Limit`, `X-Quota-Remaining` (after this request's charge), `X-Quota-Reset` (ISO-8601 UTC). */
export function quotaHeaders(quota: QuotaState): Record<string, string | number> {
  return {
    'x-quota-limit': quota.limit,
    'x-quota-remaining': quota.remaining,
    'x-quota-reset': quota.resetAt,
  };
}

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until the bucket is full). */
export function rateLimitHeaders(decision: RateDecision): Record<string, number> {
  return {
    'ratelimit-limit': decision.limit,
    'ratelimit-remaining': decision.remaining,
    'ratelimit-reset': decision.resetSeconds,
  };
}

/** Sets the quota headers on a reply. */
export function setQuotaHeaders(reply: FastifyReply, quota: QuotaState): void {
  reply.headers(quotaHeaders(quota));
}

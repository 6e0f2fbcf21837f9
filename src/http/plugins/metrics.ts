/**
 * The API's metrics: every answered request counted by method, route pattern (never the raw URL:
 * ids would make the label unbounded) and status, with its latency; refusals for the caller's
 * limits counted by kind; and, with MAILVET_METRICS_TOKEN, `GET /metrics` on the API port behind
 * that bearer token. Without the token (or with metrics off) there is no such route: a 404 like
 * any unknown one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { MetricsExposition, MetricsRecorder, RefusalKind } from '../../observability/ports.ts';
import { ApiError, unauthorized } from '../errors.ts';
import { bearerToken } from './auth.ts';

export interface MetricsPluginOptions {
  metrics: MetricsRecorder;
  /** Serves `/metrics` on this app, to callers that present `token`. */
  endpoint?: { exposition: MetricsExposition; token: string };
}

/** The route label of requests no route matched (404s): one value, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

const REFUSALS: ReadonlySet<string> = new Set<RefusalKind>([
  'rate_limited',
  'quota_exceeded',
  'bulk_quota_exceeded',
  'too_many_lists',
  'storage_limit_reached',
]);

/** Adds the metrics hooks (when metrics are on) and the token-guarded `/metrics` route (when asked). */
export const metricsPlugin = fp<MetricsPluginOptions>(async (app, { metrics, endpoint }) => {
  if (metrics.enabled) {
    app.addHook('onError', async (_request, _reply, error) => {
      if (error instanceof ApiError && REFUSALS.has(error.code)) metrics.refusal(error.code as RefusalKind);
    });
    app.addHook('onResponse', async (request, reply) => {
      metrics.httpRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
    });
  }
  if (endpoint === undefined) return;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!metricsTokenMatches(endpoint.token, request.headers.authorization)) {
      throw unauthorized(request.headers.authorization !== undefined);
    }
    reply.header('content-type', endpoint.exposition.contentType);
    return endpoint.exposition.scrape();
  });
});

/** The route pattern a request matched (`/api/v1/lists/:id`), or `unmatched`. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}

/**
 * Whether an Authorization header carries `Bearer <expected>`. Both sides are hashed first, so the
 * constant-time comparison also hides the token's length.
 */
export function metricsTokenMatches(expected: string, authorization: string | undefined): boolean {
  const given = bearerToken(authorization);
  if (given === undefined) return false;
  return timingSafeEqual(sha256(given), sha256(expected));
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

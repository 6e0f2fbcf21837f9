/**
 * The authenticated /api/v1 routes. Like a folder with `autohooks`: auth, then the rate limit
 * apply to every route registered here, in that order (DESIGN §1); the verification routes add
 * the JSON-object check in their own context, and the list routes their streaming body parsers.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Plan } from '../../../accounts/plans.ts';
import type { ListService } from '../../../lists/list-service.ts';
import type { Store } from '../../../store.ts';
import type { RateLimiter } from '../../../usage/ports.ts';
import type { VerificationService } from '../../../usage/verification-service.ts';
import { authPlugin } from '../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../plugins/json-body.ts';
import { rateLimitPlugin } from '../../plugins/rate-limit.ts';
import { bulkRoute } from './bulk.ts';
import { listRoutes } from './lists/index.ts';
import { verifyRoute } from './verify.ts';

export interface V1Deps {
  service: Pick<VerificationService, 'verifyOne' | 'verifyBulk' | 'quotaState'>;
  store: Pick<Store, 'findApiKeyByHash'>;
  rateLimiter: RateLimiter;
  plans: Readonly<Record<string, Plan>>;
  /** List jobs; without them (tests of the verification routes) the list routes are absent. */
  lists?: ListService;
  /** Signs webhooks: the per-list webhook secret is derived from it. */
  secretKey?: Buffer;
  /** A list upload whose body stops arriving for this long is refused (408), ms. */
  uploadIdleTimeoutMs?: number;
  /** A list upload that takes longer than this in all is refused (408), ms. */
  uploadTimeoutMs?: number;
}

/** Registers the verification routes under the caller's prefix (`/api/v1`). */
export const v1Routes: FastifyPluginAsync<V1Deps> = async (app, deps) => {
  const { service, store, rateLimiter, plans, lists, secretKey, uploadIdleTimeoutMs, uploadTimeoutMs } = deps;
  // Each plugin gets only its own dependencies: passing these options on whole would pass the
  // caller's `prefix` too, and prefix the routes twice.
  await app.register(authPlugin, { store, plans });
  await app.register(rateLimitPlugin, { rateLimiter, service });
  await app.register(async (verification) => {
    await verification.register(jsonBodyPlugin);
    await verification.register(verifyRoute, { service });
    await verification.register(bulkRoute, { service });
  });
  if (lists !== undefined && secretKey !== undefined) {
    await app.register(listRoutes, {
      lists,
      secretKey,
      maxRows: LIST_MAX_ROWS,
      uploadIdleTimeoutMs: uploadIdleTimeoutMs ?? UPLOAD_IDLE_TIMEOUT_MS,
      uploadTimeoutMs: uploadTimeoutMs ?? UPLOAD_TIMEOUT_MS,
    });
  }
};

/** How long a list upload's body may stop arriving by default, ms (MAILVET_UPLOAD_IDLE_TIMEOUT_MS). */
export const UPLOAD_IDLE_TIMEOUT_MS = 30_000;
/** How long a whole list upload may take by default, ms (MAILVET_UPLOAD_TIMEOUT_MS): an hour. */
export const UPLOAD_TIMEOUT_MS = 3_600_000;

/** The most rows one list may have (up to 1,000,000). */
export const LIST_MAX_ROWS = 1_000_000;

/**
 * The authenticated /api/v1 routes. Like a folder with `autohooks`: auth, then the rate limit,
 * then the JSON-object check apply to every route registered here, in that order (DESIGN §1).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Plan } from '../../../accounts/plans.ts';
import type { Store } from '../../../accounts/store.ts';
import type { RateLimiter } from '../../../service/ports.ts';
import type { VerificationService } from '../../../service/verification-service.ts';
import { authPlugin } from '../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../plugins/json-body.ts';
import { rateLimitPlugin } from '../../plugins/rate-limit.ts';
import { bulkRoute } from './bulk.ts';
import { verifyRoute } from './verify.ts';

export interface V1Deps {
  service: Pick<VerificationService, 'verifyOne' | 'verifyBulk' | 'quotaState'>;
  store: Pick<Store, 'findApiKeyByHash'>;
  rateLimiter: RateLimiter;
  plans: Readonly<Record<string, Plan>>;
}

/** Registers the verification routes under the caller's prefix (`/api/v1`). */
export const v1Routes: FastifyPluginAsync<V1Deps> = async (app, { service, store, rateLimiter, plans }) => {
  // Each plugin gets only its own dependencies: passing these options on whole would pass the
  // caller's `prefix` too, and prefix the routes twice.
  await app.register(authPlugin, { store, plans });
  await app.register(rateLimitPlugin, { rateLimiter, service });
  await app.register(jsonBodyPlugin);
  await app.register(verifyRoute, { service });
  await app.register(bulkRoute, { service });
};

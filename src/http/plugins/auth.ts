/**
 * Bearer authentication for the /api/v1 verification routes (DESIGN §1). The key is looked up by
 * its SHA-256 hash and confirmed in constant time. No key cache: revocation in the store takes
 * effect on the next request, on every process.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashApiKey, hashesEqual, looksLikeApiKey } from '../../accounts/api-keys.ts';
import { effectiveLimits, type Plan } from '../../accounts/plans.ts';
import type { Store } from '../../store.ts';
import type { Caller } from '../../usage/verification-service.ts';
import { ApiError, unauthorized } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request acts for; set by the auth hook on authenticated routes. */
    caller: Caller | null;
  }
}

export interface AuthDeps {
  store: Pick<Store, 'findApiKeyByHash'>;
  plans: Readonly<Record<string, Plan>>;
}

// RFC 7235: the scheme is case-insensitive; RFC 6750: one token68 after it.
const BEARER = /^Bearer +([^\s]+) *$/i;

/** The bearer token of an Authorization header; undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/** Adds the auth hook (onRequest) to the registering context. */
export const authPlugin = fp<AuthDeps>(async (app, { store, plans }) => {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) throw unauthorized(false);
    // Malformed keys never reach the store.
    if (!looksLikeApiKey(token)) throw unauthorized(true);
    const keyHash = hashApiKey(token);
    const record = await store.findApiKeyByHash(keyHash);
    if (record === null || record.revokedAt !== null || !hashesEqual(record.keyHash, keyHash)) {
      throw unauthorized(true);
    }
    request.caller = {
      keyId: record.id,
      accountId: record.accountId,
      limits: effectiveLimits(plans, record.plan, record),
    };
  });
});

/** The caller of an authenticated route; a missing one is a bug (the route is outside auth). */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null)
    throw new ApiError('internal_error', { message: 'route is not authenticated' });
  return request.caller;
}

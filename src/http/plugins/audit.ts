/**
 * Who makes an authenticated request's changes, for the audit log: `request.initiator()` is the
 * signed-in user (their email as the label), or the API key (its name and prefix), with the
 * client's address. A key's name is read only when a change is recorded, so the authentication of
 * every request stays as it was.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { User } from '../../accounts/ports.ts';
import type { Initiator } from '../../audit/ports.ts';
import type { Store } from '../../store.ts';
import { callerOf } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who acts in this request, and from where; on authenticated routes only. */
    initiator(): Promise<Initiator>;
  }
}

export interface AuditPluginDeps {
  keys: Pick<Store, 'findApiKeyById'>;
}

/** Adds `request.initiator()` to the registering context (after the auth plugin). */
export const auditPlugin = fp<AuditPluginDeps>(async (app, { keys }) => {
  app.decorateRequest('initiator', async function (this: FastifyRequest): Promise<Initiator> {
    if (this.session !== null) return userInitiator(this.session.user, this.ip);
    const { keyId } = callerOf(this);
    const key = await keys.findApiKeyById(keyId);
    const label = key === null ? keyId : `${key.name} (${key.displayPrefix}…)`;
    return { actor: { type: 'key', id: keyId, label }, ip: this.ip };
  });
});

/** A dashboard user acting from `ip` (sign-in, and the routes before authentication). */
export function userInitiator(user: Pick<User, 'id' | 'email'>, ip: string): Initiator {
  return { actor: { type: 'user', id: user.id, label: user.email }, ip };
}

/**
 * The account's API keys, managed from the dashboard: session only, since keys do not
 * manage keys. A key of another account answers 404, like one that does not exist. A key's own
 * caps may not exceed its account's figures.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { issueApiKey } from '../../../../accounts/key-issuance.ts';
import type { ApiKeyRecord, Figures } from '../../../../accounts/ports.ts';
import { type AuditTrail, type Change, changedFields } from '../../../../audit/audit-trail.ts';
import { keySettings } from '../../../../audit/described.ts';
import type { Store } from '../../../../store.ts';
import type { Meter } from '../../../../usage/meter.ts';
import { monthOf } from '../../../../usage/months.ts';
import type { Usage } from '../../../../usage/ports.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf, sessionOf } from '../../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../../plugins/json-body.ts';
import {
  type KeyBody,
  keyCreateBodySchema,
  keyIdParams,
  keyPatchBodySchema,
} from '../../../schemas/accounts.ts';
import { authedErrorResponses, okResponse } from '../../../schemas/responses.ts';

export interface KeyRoutesDeps {
  store: Pick<
    Store,
    | 'createAccount'
    | 'findAccount'
    | 'createApiKey'
    | 'listApiKeys'
    | 'findApiKeyById'
    | 'updateApiKey'
    | 'revokeApiKey'
    | 'keyUsages'
  >;
  now?: () => Date;
  /** Records keys created, changed and revoked. */
  audit?: AuditTrail | undefined;
}

const errors = authedErrorResponses;

/** The key routes. */
export const keyRoutes: FastifyPluginAsync<KeyRoutesDeps> = async (
  app,
  { store, now = () => new Date(), audit },
) => {
  const security = [{ sessionCookie: [] }];
  const record = async (request: FastifyRequest, change: Change) => {
    if (audit !== undefined)
      await audit.record(callerOf(request).accountId, await request.initiator(), change);
  };
  app.get(
    '/keys',
    {
      schema: {
        tags: ['accounts'],
        summary: "The account's API keys, oldest first (revoked ones too)",
        security,
        response: { 200: okResponse('ApiKeyList', 'The keys.'), ...errors() },
      },
    },
    async (request) => {
      sessionOf(request);
      const { accountId } = callerOf(request);
      const month = monthOf(now());
      const [keys, usages] = await Promise.all([
        store.listApiKeys(accountId),
        store.keyUsages(accountId, month),
      ]);
      return { keys: keys.map((key) => keyView(key, month, usages.get(key.id))) };
    },
  );

  app.register(async (writes) => {
    await writes.register(jsonBodyPlugin);
    writes.post<{ Body: KeyBody & { name: string } }>(
      '/keys',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Create an API key (shown once)',
          security,
          body: keyCreateBodySchema,
          response: {
            201: okResponse('CreatedApiKey', 'The key, with the key itself shown this once.'),
            ...errors({ 400: ['bad_request'], 422: ['validation_failed'] }),
          },
        },
      },
      async (request, reply) => {
        sessionOf(request);
        const caller = callerOf(request);
        const caps = capsWithinAccount(caller, request.body);
        const { record: created, key } = await issueApiKey(store, {
          accountId: caller.accountId,
          name: request.body.name.trim(),
          caps,
        });
        await record(request, {
          action: 'key.created',
          targetId: created.id,
          details: { ...keySettings(created), prefix: created.displayPrefix },
        });
        reply.code(201);
        return { ...keyView(created, monthOf(now()), undefined), key };
      },
    );

    writes.patch<{ Params: { id: string }; Body: KeyBody }>(
      '/keys/:id',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Rename a key or change its own caps (null removes a cap)',
          security,
          params: keyIdParams,
          body: keyPatchBodySchema,
          response: {
            200: okResponse('ApiKey', 'The key after the change.'),
            ...errors({ 400: ['bad_request'], 404: ['not_found'], 422: ['validation_failed'] }),
          },
        },
      },
      async (request) => {
        sessionOf(request);
        const caller = callerOf(request);
        const existing = await ownKey(store, caller.accountId, request.params.id);
        const caps = capsWithinAccount(caller, request.body);
        const name = request.body.name?.trim();
        const updated = await store.updateApiKey(caller.accountId, existing.id, {
          ...(name !== undefined && { name }),
          caps,
        });
        if (updated === null) throw keyNotFound();
        const changed = changedFields(keySettings(existing), keySettings(updated));
        if (changed !== null)
          await record(request, { action: 'key.updated', targetId: updated.id, details: changed });
        const month = monthOf(now());
        return keyView(updated, month, (await store.keyUsages(caller.accountId, month)).get(updated.id));
      },
    );
  });

  app.delete<{ Params: { id: string } }>(
    '/keys/:id',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Revoke a key: requests with it are refused from then on',
        security,
        params: keyIdParams,
        response: { 204: { description: 'Revoked.', type: 'null' }, ...errors({ 404: ['not_found'] }) },
      },
    },
    async (request, reply) => {
      sessionOf(request);
      const key = await ownKey(store, callerOf(request).accountId, request.params.id);
      if (await store.revokeApiKey(key.id)) {
        await record(request, {
          action: 'key.revoked',
          targetId: key.id,
          details: { name: key.name, prefix: key.displayPrefix },
        });
      }
      reply.code(204);
    },
  );
};

/** The account's key with this id; 404 for another account's, a dashboard key, or none. */
async function ownKey(store: KeyRoutesDeps['store'], accountId: string, id: string): Promise<ApiKeyRecord> {
  const key = await store.findApiKeyById(id);
  if (key === null || key.accountId !== accountId || key.kind !== 'api') throw keyNotFound();
  return key;
}

function keyNotFound(): ApiError {
  return new ApiError('not_found', { message: 'No such key' });
}

/** The caps of a request body; a cap above the account's figure is refused. */
function capsWithinAccount(caller: Meter, body: KeyBody): Partial<Figures> {
  const problems = [];
  if (body.rate_limit != null && body.rate_limit > caller.limits.ratePerSecond) {
    problems.push({
      field: 'rate_limit',
      message: `At most the account's ${caller.limits.ratePerSecond} per second`,
    });
  }
  if (body.monthly_cap != null && body.monthly_cap > caller.limits.monthlyVerifications) {
    problems.push({
      field: 'monthly_cap',
      message: `At most the account's ${caller.limits.monthlyVerifications} a month`,
    });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return {
    ...(body.rate_limit !== undefined && { rateLimit: body.rate_limit }),
    ...(body.monthly_cap !== undefined && { monthlyQuota: body.monthly_cap }),
  };
}

/** A key as the API shows it. */
export function keyView(key: ApiKeyRecord, month: string, usage: Usage | undefined) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.displayPrefix,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
    rate_limit: key.caps.rateLimit,
    monthly_cap: key.caps.monthlyQuota,
    usage: { month, verifications: usage?.verifications ?? 0 },
  };
}

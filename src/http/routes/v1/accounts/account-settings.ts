/**
 * PATCH /api/v1/account: the account's own settings, with a key or a session. Today one:
 * `retention_days`, how long finished lists keep their rows and results (null: the server's
 * default), at most the plan's maximum (422 above it). The change is recorded in the audit log as
 * `account.settings_changed` with the setting before and after.
 */
import type { FastifyPluginAsync } from 'fastify';
import { type AuditTrail, changedFields } from '../../../../audit/audit-trail.ts';
import { retentionDaysOf, retentionRefusal } from '../../../../privacy/retention.ts';
import type { Store } from '../../../../store.ts';
import { ApiError, validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { accountPatchSchema } from '../../../schemas/accounts.ts';
import { authedErrorResponses } from '../../../schemas/responses.ts';

export interface AccountSettingsDeps {
  store: Pick<Store, 'findAccount' | 'updateAccount'>;
  defaultRetentionDays: number;
  audit?: Pick<AuditTrail, 'record'> | undefined;
}

interface AccountPatchBody {
  retention_days?: number | null;
}

export const accountSettingsRoutes: FastifyPluginAsync<AccountSettingsDeps> = async (
  app,
  { store, defaultRetentionDays, audit },
) => {
  app.patch<{ Body: AccountPatchBody }>(
    '/account',
    {
      schema: {
        tags: ['accounts'],
        summary: "Changes the account's settings (retention of list results)",
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
        body: accountPatchSchema,
        response: {
          200: {
            description: 'The settings after the change.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['retention_days', 'retention_days_setting'],
                  properties: {
                    retention_days: { type: 'integer', minimum: 0 },
                    retention_days_setting: { type: ['integer', 'null'], minimum: 0 },
                  },
                },
              },
            },
          },
          ...authedErrorResponses({ 404: ['not_found'], 422: ['validation_failed'] }),
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const planMax = caller.limits.retentionDays;
      const wanted = request.body.retention_days;
      if (wanted !== undefined && wanted !== null) {
        const refusal = retentionRefusal(wanted, planMax);
        if (refusal !== null) throw validationFailed([{ field: 'retention_days', message: refusal }]);
      }
      const before = await store.findAccount(caller.accountId);
      if (before === null) throw new ApiError('not_found', { message: 'No such account' });
      const after =
        wanted === undefined
          ? before
          : await store.updateAccount(caller.accountId, { retentionDays: wanted });
      if (after === null) throw new ApiError('not_found', { message: 'No such account' });
      const change = changedFields(
        { retention_days: before.retentionDays ?? null },
        { retention_days: after.retentionDays ?? null },
      );
      if (change !== null && audit !== undefined) {
        await audit.record(caller.accountId, await request.initiator(), {
          action: 'account.settings_changed',
          targetId: caller.accountId,
          details: change,
        });
      }
      return {
        retention_days: retentionDaysOf(after.retentionDays, defaultRetentionDays, planMax),
        retention_days_setting: after.retentionDays ?? null,
      };
    },
  );
};

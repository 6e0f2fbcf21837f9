/**
 * GET /api/v1/account (plan, figures, retention, this month's usage) and GET /api/v1/usage (per
 * day by status, per key), with a key or a session. Only the caller's own account. Its settings
 * change with PATCH (account-settings.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { DEFAULT_RETENTION_DAYS } from '../../../../accounts/plans.ts';
import { retentionDaysOf } from '../../../../privacy/retention.ts';
import type { Store } from '../../../../store.ts';
import { verificationCeiling } from '../../../../usage/meter.ts';
import { monthOf, nextMonthStart } from '../../../../usage/months.ts';
import { type UsageReport, usageReport } from '../../../../usage/usage-report.ts';
import { quotaState } from '../../../../usage/verification-service.ts';
import { validationFailed } from '../../../errors.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { usageQuerySchema } from '../../../schemas/accounts.ts';
import { apiErrorResponses, okResponse } from '../../../schemas/responses.ts';
import { keyView } from './keys.ts';

export interface AccountRoutesDeps {
  store: Pick<Store, 'findAccount' | 'findApiKeyById' | 'usage' | 'dailyUsage' | 'listApiKeys'>;
  /** MAILVET_RETENTION_DAYS (default 30). */
  defaultRetentionDays?: number;
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest range one usage request may cover, in days. */
const MAX_USAGE_DAYS = 366;
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }];
const errors = apiErrorResponses({ 401: ['unauthorized'], 429: ['rate_limited'], 500: ['internal_error'] });

export const accountRoutes: FastifyPluginAsync<AccountRoutesDeps> = async (
  app,
  { store, defaultRetentionDays = DEFAULT_RETENTION_DAYS, now = () => new Date() },
) => {
  app.get(
    '/account',
    {
      schema: {
        tags: ['accounts'],
        summary: "The account: plan, figures and this month's usage",
        security,
        response: { 200: okResponse('Account', 'The account.'), ...errors },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const at = now();
      const month = monthOf(at);
      const [account, usage, key] = await Promise.all([
        store.findAccount(caller.accountId),
        store.usage(caller, month),
        request.session === null ? store.findApiKeyById(caller.keyId) : null,
      ]);
      const ceiling = verificationCeiling(caller);
      const quota = quotaState(
        ceiling,
        { account: usage.account.verifications, key: usage.key.verifications },
        at,
      );
      const { limits } = caller;
      return {
        id: caller.accountId,
        name: account?.name ?? '',
        plan: limits.name,
        retention_days: retentionDaysOf(account?.retentionDays, defaultRetentionDays, limits.retentionDays),
        retention_days_setting: account?.retentionDays ?? null,
        limits: {
          monthly_verifications: limits.monthlyVerifications,
          monthly_bulk_requests: limits.monthlyBulkRequests,
          rate_limit_per_second: limits.ratePerSecond,
          max_running_lists: limits.maxRunningLists,
          max_stored_rows: limits.maxStoredRows,
          max_unfinished_lists: limits.maxUnfinishedLists,
          retention_days: limits.retentionDays,
        },
        usage: {
          month,
          verifications: usage.account.verifications,
          bulk_requests: usage.account.bulkRequests,
          remaining: quota.remaining,
          reset_at: nextMonthStart(at).toISOString(),
        },
        key: key === null ? null : keyView(key, month, usage.key),
      };
    },
  );

  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/usage',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Usage per day (verifications by status, bulk requests, list rows) and per key',
        security,
        querystring: usageQuerySchema,
        response: {
          200: okResponse('UsageReport', 'The usage.'),
          ...apiErrorResponses({ 422: ['validation_failed'] }),
          ...errors,
        },
      },
    },
    async (request): Promise<UsageReport> => {
      const { accountId } = callerOf(request);
      const today = now().toISOString().slice(0, 10);
      const to = request.query.to ?? today;
      const from =
        request.query.from ??
        new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
      for (const [field, value] of [
        ['from', from],
        ['to', to],
      ] as const) {
        if (!isRealDay(value)) throw validationFailed([{ field, message: 'Must be a real day, YYYY-MM-DD' }]);
      }
      const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
      if (span < 1) throw validationFailed([{ field: 'from', message: 'Must not be after `to`' }]);
      if (span > MAX_USAGE_DAYS) {
        throw validationFailed([
          { field: 'from', message: `The range may cover at most ${MAX_USAGE_DAYS} days` },
        ]);
      }
      const [entries, keys] = await Promise.all([
        store.dailyUsage(accountId, from, to),
        store.listApiKeys(accountId),
      ]);
      return usageReport(from, to, entries, keys);
    },
  );
};

/** `YYYY-MM-DD` naming a day that exists (not 2026-02-30). */
function isRealDay(value: string): boolean {
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === value;
}

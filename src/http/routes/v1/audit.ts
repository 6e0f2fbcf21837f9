/**
 * GET /api/v1/audit: the account's audit log, newest first, a page at a time (`before` is the last
 * entry id of the previous page), optionally one action only. With a key or a session; only the
 * caller's own account. Read only: no route changes or deletes an entry.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AuditTrail } from '../../../audit/audit-trail.ts';
import type { AuditEntry } from '../../../audit/ports.ts';
import { validationFailed } from '../../errors.ts';
import { callerOf } from '../../plugins/auth.ts';
import {
  AUDIT_PAGE_DEFAULT,
  AUDIT_PAGE_MAX,
  type AuditQueryString,
  auditQuerySchema,
} from '../../schemas/audit.ts';
import { authedErrorResponses, okResponse } from '../../schemas/responses.ts';

export interface AuditRoutesDeps {
  audit: Pick<AuditTrail, 'page'>;
}

export const auditRoutes: FastifyPluginAsync<AuditRoutesDeps> = async (app, { audit }) => {
  app.get<{ Querystring: AuditQueryString }>(
    '/audit',
    {
      schema: {
        tags: ['accounts'],
        summary: "The account's audit log, newest first",
        description:
          'Every change in the account: sign-ins and failed sign-ins, users, keys, plans and limits, ' +
          'deleted lists, integrations, runs, schedules, watches, erasures and exports. Entries are ' +
          'kept 400 days and never changed.',
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
        querystring: auditQuerySchema,
        response: {
          200: okResponse('AuditLogPage', 'A page of entries.'),
          ...authedErrorResponses({ 422: ['validation_failed'] }),
        },
      },
    },
    async (request) => {
      const { accountId } = callerOf(request);
      const limit = pageLimit(request.query.limit);
      const { action, before } = request.query;
      const page = await audit.page(accountId, {
        ...(action !== undefined && { action }),
        ...(before !== undefined && { before }),
        limit: limit + 1,
      });
      const shown = page.slice(0, limit);
      return {
        entries: shown.map(entryView),
        next_before: page.length > limit ? (shown.at(-1)?.id ?? null) : null,
      };
    },
  );
};

function pageLimit(value: string | undefined): number {
  const limit = value === undefined ? AUDIT_PAGE_DEFAULT : Number(value);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= AUDIT_PAGE_MAX)) {
    throw validationFailed([{ field: 'limit', message: `Must be an integer from 1 to ${AUDIT_PAGE_MAX}` }]);
  }
  return limit;
}

/** An entry as the API shows it: everything but the account, which is the caller's. */
export function entryView(entry: AuditEntry) {
  return {
    id: entry.id,
    at: entry.at,
    actor: entry.actor,
    ip: entry.ip,
    action: entry.action,
    target: entry.target,
    details: entry.details,
  };
}

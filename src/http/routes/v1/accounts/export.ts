/**
 * GET /api/v1/account/export: the account's data as one JSON document (export-document.ts),
 * streamed as it is read, with a key or a session. Recorded in the audit log (`account.exported`)
 * before the first byte, so the document holds its own entry.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { AuditTrail } from '../../../../audit/audit-trail.ts';
import { callerOf } from '../../../plugins/auth.ts';
import { authedErrorResponses } from '../../../schemas/responses.ts';
import { type AccountExportDeps, accountExport } from './export-document.ts';

export interface AccountExportRouteDeps extends AccountExportDeps {
  audit?: Pick<AuditTrail, 'record'> | undefined;
}

export const accountExportRoute: FastifyPluginAsync<AccountExportRouteDeps> = async (app, deps) => {
  app.get(
    '/account/export',
    {
      schema: {
        tags: ['accounts'],
        summary: "The account's data, as one JSON document",
        description:
          'Streams `{"format", "exported_at", "account", "users", "keys", "lists", "feedback", "integrations", "runs", "schedules", "audit_log"}`: settings, users (no password hashes), keys (their prefixes only), every list with its rows and results (`results` null once expired), feedback events, integrations (no credentials), runs, schedules and the audit log. See docs/data-protection.md.',
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
        response: {
          200: {
            description: 'The document, streamed.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...authedErrorResponses({}),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = callerOf(request);
      if (deps.audit !== undefined) {
        await deps.audit.record(accountId, await request.initiator(), {
          action: 'account.exported',
          targetId: accountId,
        });
      }
      const day = deps.now().toISOString().slice(0, 10);
      reply.type('application/json; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="mailvet-account-${day}.json"`);
      return reply.send(Readable.from(accountExport(deps, accountId), { objectMode: false }));
    },
  );
};

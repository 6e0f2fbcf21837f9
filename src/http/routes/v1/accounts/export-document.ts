/**
 * The account's export as one JSON document, written piece by piece: every collection is read a
 * page at a time and each page turned into text before the next is read, so memory stays bounded
 * whatever the account holds (100,000 result rows cost what 1,000 do). The objects are the API's
 * own views (a list as GET /lists/{id}, a run as GET …/runs/{id}), without what the API never
 * shows: password hashes, keys (only their prefixes), platform credentials, hook tokens.
 */
import type { Plan } from '../../../../accounts/plans.ts';
import type { RunService } from '../../../../integrations/runs/run-service.ts';
import { listView } from '../../../../lists/list-view.ts';
import { planMaxRetentionDays, retentionDaysOf } from '../../../../privacy/retention.ts';
import type { Store } from '../../../../store.ts';
import { entryView } from '../audit.ts';
import { integrationView } from '../integrations/index.ts';
import { runView } from '../integrations/runs.ts';
import { scheduleView } from '../integrations/schedules.ts';

export interface AccountExportDeps {
  store: Pick<
    Store,
    | 'findAccount'
    | 'listApiKeys'
    | 'users'
    | 'lists'
    | 'privacy'
    | 'integrations'
    | 'schedules'
    | 'audit'
    | 'runs'
  >;
  runs: Pick<RunService, 'page'>;
  plans: Readonly<Record<string, Plan>>;
  /** MAILVET_RETENTION_DAYS. */
  defaultRetentionDays: number;
  now: () => Date;
}

/** Rows, events or entries read per page. */
export const EXPORT_PAGE = 1000;
/** Lists, runs read per page (each list then pages its rows). */
const LIST_PAGE = 50;

/** The document's name and version: a reader can tell what it holds. */
export const EXPORT_FORMAT = 'mailvet-account-export/1';

/** The document, as text chunks of about a page each. */
export async function* accountExport(deps: AccountExportDeps, accountId: string): AsyncGenerator<string> {
  const { store } = deps;
  const account = await store.findAccount(accountId);
  if (account === null) throw new Error(`account ${accountId} vanished during its export`);
  const plan = deps.plans[account.plan];
  yield `{"format":${json(EXPORT_FORMAT)},"exported_at":${json(deps.now().toISOString())},"account":${json({
    id: account.id,
    name: account.name,
    plan: account.plan,
    created_at: account.createdAt,
    retention_days: retentionDaysOf(
      account.retentionDays,
      deps.defaultRetentionDays,
      planMaxRetentionDays(plan),
    ),
    retention_days_setting: account.retentionDays ?? null,
  })}`;
  const users = await store.users.listUsers(accountId);
  yield `,"users":${json(
    users.map((user) => ({
      id: user.id,
      email: user.email,
      created_at: user.createdAt,
      email_confirmed_at: user.emailConfirmedAt,
      operator: user.operator,
    })),
  )}`;
  const keys = await store.listApiKeys(accountId);
  yield `,"keys":${json(
    keys.map((key) => ({
      id: key.id,
      name: key.name,
      prefix: key.displayPrefix,
      created_at: key.createdAt,
      last_used_at: key.lastUsedAt,
      revoked_at: key.revokedAt,
    })),
  )}`;
  yield* listsSection(deps, accountId);
  yield* feedbackSection(deps, accountId);
  yield* integrationsSection(deps, accountId);
  yield* auditSection(deps, accountId);
  yield '}\n';
}

async function* listsSection(deps: AccountExportDeps, accountId: string): AsyncGenerator<string> {
  yield ',"lists":[';
  let after: { createdAt: string; id: string } | undefined;
  let first = true;
  for (;;) {
    const lists = await deps.store.lists.listLists(accountId, LIST_PAGE, after);
    for (const list of lists) {
      const { links: _, ...view } = listView(list);
      const head = json({ ...view, header: list.header });
      yield `${first ? '' : ','}${head.slice(0, -1)},"results":`;
      first = false;
      if ((list.resultsExpiredAt ?? null) !== null) {
        yield 'null}';
        continue;
      }
      yield '[';
      let afterRow = 0;
      let firstRow = true;
      for (;;) {
        const rows = await deps.store.lists.resultRows(list.id, afterRow, EXPORT_PAGE);
        if (rows.length === 0) break;
        const text = rows
          .map((row) =>
            json({ row: row.rowNumber, email: row.email, fields: row.fields, result: row.result }),
          )
          .join(',');
        yield `${firstRow ? '' : ','}${text}`;
        firstRow = false;
        afterRow = rows[rows.length - 1]!.rowNumber;
      }
      yield ']}';
    }
    if (lists.length < LIST_PAGE) break;
    const last = lists[lists.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  yield ']';
}

async function* feedbackSection(deps: AccountExportDeps, accountId: string): AsyncGenerator<string> {
  yield ',"feedback":[';
  let after: { email: string; event: string; at: string } | null = null;
  let first = true;
  for (;;) {
    const events = await deps.store.privacy.feedbackPage(accountId, after, EXPORT_PAGE);
    if (events.length === 0) break;
    const text = events
      .map((event) =>
        json({ email: event.email, event: event.event, at: event.at, recorded_at: event.createdAt }),
      )
      .join(',');
    yield `${first ? '' : ','}${text}`;
    first = false;
    const last = events[events.length - 1]!;
    after = { email: last.email, event: last.event, at: last.at };
  }
  yield ']';
}

async function* integrationsSection(deps: AccountExportDeps, accountId: string): AsyncGenerator<string> {
  const integrations = await deps.store.integrations.listIntegrations(accountId);
  yield `,"integrations":${json(integrations.map(integrationView))}`;
  yield ',"runs":[';
  let first = true;
  for (const integration of integrations) {
    let before: { createdAt: string; id: string } | undefined;
    for (;;) {
      const views = await deps.runs.page(accountId, integration.id, LIST_PAGE, before);
      if (views.length === 0) break;
      yield `${first ? '' : ','}${views.map((view) => json(runView(view))).join(',')}`;
      first = false;
      if (views.length < LIST_PAGE) break;
      const last = views[views.length - 1]!.run;
      before = { createdAt: last.createdAt, id: last.id };
    }
  }
  yield ']';
  const schedules = [];
  for (const integration of integrations)
    schedules.push(
      ...(await deps.store.schedules.listSchedules(accountId, integration.id)).map(scheduleView),
    );
  yield `,"schedules":${json(schedules)}`;
}

async function* auditSection(deps: AccountExportDeps, accountId: string): AsyncGenerator<string> {
  yield ',"audit_log":[';
  let before: string | undefined;
  let first = true;
  for (;;) {
    const entries = await deps.store.audit.list(accountId, { limit: EXPORT_PAGE, ...(before && { before }) });
    if (entries.length === 0) break;
    yield `${first ? '' : ','}${entries.map((entry) => json(entryView(entry))).join(',')}`;
    first = false;
    if (entries.length < EXPORT_PAGE) break;
    before = entries[entries.length - 1]!.id;
  }
  yield ']';
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

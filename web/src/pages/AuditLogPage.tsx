/**
 * The account's audit log: every change, newest first, a page at a time ("Show older entries"),
 * with a filter by kind of change. Read only, as the log is.
 */
import { useCallback, useEffect, useId, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { AuditAction, AuditEntry } from '../api/types';
import { AuditTable } from '../audit/AuditTable';
import { ACTION_LABELS, ACTIONS } from '../audit/describe';
import { PageTitle } from '../components/PageTitle';

const PAGE_SIZE = '50';

export function AuditLogPage() {
  const id = useId();
  const [action, setAction] = useState<AuditAction | ''>('');
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async (filter: AuditAction | '', before: string | null) => {
    setBusy(true);
    const query = {
      limit: PAGE_SIZE,
      ...(filter !== '' && { action: filter }),
      ...(before !== null && { before }),
    };
    const outcome = await settle(api.GET('/api/v1/audit', { params: { query } }));
    setBusy(false);
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    setEntries((shown) => [...(before === null ? [] : (shown ?? [])), ...outcome.data.entries]);
    setNextBefore(outcome.data.next_before);
  }, []);

  useEffect(() => {
    setEntries(null);
    void load(action, null);
  }, [action, load]);

  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p className="muted">
        Every change in your account: sign-ins, users, keys, plans and limits, deleted lists, integrations,
        runs, schedules and watches, by whom and from where. Entries are kept 400 days and cannot be changed.
      </p>
      <section aria-labelledby={`${id}-heading`}>
        <h2 id={`${id}-heading`}>Changes</h2>
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`${id}-action`}>Action</label>
            <select
              id={`${id}-action`}
              value={action}
              onChange={(event) => setAction(event.target.value as AuditAction | '')}
            >
              <option value="">All actions</option>
              {ACTIONS.map((name) => (
                <option key={name} value={name}>
                  {ACTION_LABELS[name]}
                </option>
              ))}
            </select>
          </div>
        </div>
        {problem !== null && (
          <div role="alert" className="alert alert-error">
            The audit log could not be loaded: {problem.message}
          </div>
        )}
        {entries === null && problem === null && <p className="muted">Loading the audit log…</p>}
        {entries !== null && (
          <p role="status" className="muted">
            {shownText(entries.length, nextBefore !== null, action)}
          </p>
        )}
        {entries !== null && entries.length > 0 && <AuditTable entries={entries} />}
        {nextBefore !== null && (
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() => void load(action, nextBefore)}
          >
            Show older entries
          </button>
        )}
      </section>
    </>
  );
}

function shownText(count: number, more: boolean, action: AuditAction | ''): string {
  const kind = action === '' ? '' : ` of “${ACTION_LABELS[action]}”`;
  if (count === 0) return action === '' ? 'No changes recorded yet.' : `No entries${kind}.`;
  const entries = count === 1 ? '1 entry' : `${count} entries`;
  return more ? `The newest ${entries}${kind}; older ones follow.` : `${entries}${kind}, all there are.`;
}

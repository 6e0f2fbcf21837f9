/**
 * Download a list's results: the clean list in one click (the rows safe to send to, CSV), or CSV or
 * JSON keeping the statuses ticked. Plain same-origin links: the browser sends the session cookie
 * and streams the file to disk.
 */
import { useId, useState } from 'react';
import type { List, Status } from '../api/types';
import { STATUSES } from '../lib/statuses';

/** The results address for a format and the statuses kept (all when every one is ticked). */
export function resultsHref(listId: string, format: 'csv' | 'json', statuses: readonly Status[]): string {
  const base = `/api/v1/lists/${encodeURIComponent(listId)}/results?format=${format}`;
  return statuses.length === STATUSES.length ? base : `${base}&status=${statuses.join(',')}`;
}

/** The statuses of a clean list: the addresses worth sending to. */
export const CLEAN_STATUSES: readonly Status[] = ['VALID', 'PROBABLY_VALID'];

export function Downloads({ list }: { list: List }) {
  const [kept, setKept] = useState<ReadonlySet<Status>>(() => new Set(STATUSES.map((info) => info.status)));
  const legendId = useId();
  const statuses = STATUSES.map((info) => info.status).filter((status) => kept.has(status));
  const toggle = (status: Status, on: boolean) => {
    const next = new Set(kept);
    if (on) next.add(status);
    else next.delete(status);
    setKept(next);
  };
  const fileName = list.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'list';
  return (
    <div className="downloads">
      <p className="actions">
        <a
          className="button primary"
          href={resultsHref(list.id, 'csv', CLEAN_STATUSES)}
          download={`${fileName}-clean.csv`}
          aria-describedby={`${legendId}-clean`}
        >
          Download clean list
        </a>
        <span id={`${legendId}-clean`} className="hint">
          Valid and probably valid rows, CSV.
        </span>
      </p>
      <fieldset aria-describedby={`${legendId}-hint`}>
        <legend>Statuses to download</legend>
        <p id={`${legendId}-hint`} className="hint">
          Rows not verified yet have empty result columns.
        </p>
        <div className="checkboxes">
          {STATUSES.map((info) => (
            <label key={info.status} className="checkbox">
              <input
                type="checkbox"
                checked={kept.has(info.status)}
                onChange={(event) => toggle(info.status, event.target.checked)}
              />
              {info.label}
            </label>
          ))}
        </div>
      </fieldset>
      {statuses.length === 0 ? (
        <p className="muted">Tick at least one status to download.</p>
      ) : (
        <p className="actions">
          <a className="button" href={resultsHref(list.id, 'csv', statuses)} download={`${fileName}.csv`}>
            Download CSV
          </a>
          <a className="button" href={resultsHref(list.id, 'json', statuses)} download={`${fileName}.json`}>
            Download JSON
          </a>
        </p>
      )}
    </div>
  );
}

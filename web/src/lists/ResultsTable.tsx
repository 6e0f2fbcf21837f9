/**
 * A list's results as a table, 25 rows a page (`GET /lists/{id}/rows`): one status or all, and a
 * search by address that the server runs, so a list of a million rows pages as fast as one of ten.
 * While the list runs, the page shown is read again as its results come in.
 */
import { type FormEvent, useEffect, useId, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { List, ListRowPage, Status } from '../api/types';
import { ScrollRegion } from '../components/ScrollRegion';
import { StatusBadge } from '../components/StatusBadge';
import { formatCount } from '../lib/format';
import { STATUSES } from '../lib/statuses';
import { REASONS } from '../verify/checks';

/** Rows a page shows. */
export const PAGE_ROWS = 25;

interface Query {
  status: Status | '';
  search: string;
  offset: number;
}

/** "Rows 26–50 of 1,234", or what was found when nothing was. */
export function rowsShown(page: Pick<ListRowPage, 'offset' | 'total'>, shown: number, query: Query): string {
  if (page.total === 0) {
    if (query.search !== '') return `No address contains “${query.search}”.`;
    return query.status === '' ? 'No rows yet.' : 'No rows with this status.';
  }
  if (shown === 0) return `No rows past row ${formatCount(page.total)}.`;
  const first = page.offset + 1;
  const last = page.offset + shown;
  return `Rows ${formatCount(first)}–${formatCount(last)} of ${formatCount(page.total)}`;
}

export function ResultsTable({ list }: { list: List }) {
  const [query, setQuery] = useState<Query>({ status: '', search: '', offset: 0 });
  const [page, setPage] = useState<ListRowPage | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  // Read again as results come in (a running list), not on every poll of an unchanged list.
  const progress = `${list.state}:${list.counts.processed}`;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the list's progress is a trigger to read again
  useEffect(() => {
    let current = true;
    setBusy(true);
    void settle(
      api.GET('/api/v1/lists/{id}/rows', {
        params: {
          path: { id: list.id },
          query: {
            offset: String(query.offset),
            limit: String(PAGE_ROWS),
            ...(query.status !== '' && { status: query.status }),
            ...(query.search !== '' && { q: query.search }),
          },
        },
      }),
    ).then((outcome) => {
      if (!current) return;
      setBusy(false);
      if (outcome.ok) {
        setPage(outcome.data);
        setProblem(null);
      } else setProblem(outcome.problem);
    });
    return () => {
      current = false;
    };
  }, [list.id, query, progress]);

  const search = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setQuery({
      status: String(form.get('status') ?? '') as Status | '',
      search: String(form.get('q') ?? '').trim(),
      offset: 0,
    });
  };
  const rows = page?.rows ?? [];
  const total = page?.total ?? 0;

  return (
    <div className="results-table">
      <form className="inline-form" aria-label="Search the results" onSubmit={search}>
        <div className="field">
          <label htmlFor={`${id}-q`}>Search addresses</label>
          <input
            id={`${id}-q`}
            name="q"
            type="search"
            maxLength={200}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-status`}>Status</label>
          <select
            id={`${id}-status`}
            name="status"
            value={query.status}
            onChange={(event) => {
              // A new status applies at once, with the search as typed so far.
              const typed = event.target.form === null ? null : new FormData(event.target.form).get('q');
              setQuery({
                status: event.target.value as Status | '',
                search: typed === null ? query.search : String(typed).trim(),
                offset: 0,
              });
            }}
          >
            <option value="">All statuses</option>
            {STATUSES.map((info) => (
              <option key={info.status} value={info.status}>
                {info.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button">
          Search
        </button>
      </form>
      {problem !== null && (
        <p role="alert" className="alert alert-error">
          The results could not be read: {problem.message}
        </p>
      )}
      {page === null && problem === null && <p className="muted">Loading the results…</p>}
      {page !== null && (
        <>
          <p id={`${id}-range`} role="status" className="muted">
            {rowsShown(page, rows.length, query)}
            {busy && <span className="visually-hidden"> (updating)</span>}
          </p>
          {rows.length > 0 && (
            <ScrollRegion label="Results table">
              <table className="rows-table stacked-on-narrow" aria-describedby={`${id}-range`}>
                <caption className="visually-hidden">Results, in upload order</caption>
                <thead>
                  <tr>
                    <th scope="col" className="number">
                      Row
                    </th>
                    <th scope="col">Address</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="number">
                      Score
                    </th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.row}>
                      <td className="number" data-label="Row">
                        {formatCount(row.row)}
                      </td>
                      <th scope="row" className="address row-title">
                        {row.email}
                      </th>
                      <td data-label="Status">
                        {row.result === null ? (
                          <span className="muted">Not verified yet</span>
                        ) : (
                          <StatusBadge status={row.result.status} />
                        )}
                      </td>
                      <td className="number" data-label="Score">
                        {row.result === null ? '—' : row.result.score}
                      </td>
                      <td data-label="Why">
                        {row.result === null ? '' : (REASONS[row.result.reason] ?? row.result.reason)}
                        {row.result !== null && row.result.checks.suggestions.length > 0 && (
                          <span className="muted"> Did you mean {row.result.checks.suggestions[0]}?</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          {total > PAGE_ROWS && (
            <nav className="actions pager" aria-label="Result pages">
              <button
                type="button"
                className="button"
                disabled={query.offset === 0}
                onClick={() => setQuery({ ...query, offset: Math.max(0, query.offset - PAGE_ROWS) })}
              >
                Previous
              </button>
              <button
                type="button"
                className="button"
                disabled={query.offset + PAGE_ROWS >= total}
                onClick={() => setQuery({ ...query, offset: query.offset + PAGE_ROWS })}
              >
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </div>
  );
}

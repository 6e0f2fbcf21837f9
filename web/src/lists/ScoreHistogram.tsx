/**
 * The scores of a completed list in ten bins. The scores come from the list's JSON results, so only
 * lists up to 10,000 rows are charted here: a bigger one would make the browser fetch megabytes.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { List, ResultRow } from '../api/types';
import { HistogramChart } from '../charts';
import { ChartFigure } from '../components/ChartFigure';
import { formatCount } from '../lib/format';
import { type ScoreBin, scoreBins } from '../lib/histogram';

export const HISTOGRAM_MAX_ROWS = 10_000;

type Loaded =
  | { kind: 'loading' }
  | { kind: 'bins'; bins: ScoreBin[]; scored: number }
  | { kind: 'error'; message: string };

export function ScoreHistogram({ list }: { list: List }) {
  if (list.state !== 'completed') {
    return <p className="muted">The score histogram appears when the list is completed.</p>;
  }
  if (list.counts.total > HISTOGRAM_MAX_ROWS) {
    return (
      <p className="muted">
        The score histogram is not shown for lists over {formatCount(HISTOGRAM_MAX_ROWS)} rows (this one has{' '}
        {formatCount(list.counts.total)}): download the results to see every score.
      </p>
    );
  }
  return <LoadedHistogram listId={list.id} />;
}

function LoadedHistogram({ listId }: { listId: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  useEffect(() => {
    let current = true;
    void settle(
      api.GET('/api/v1/lists/{id}/results', { params: { path: { id: listId }, query: { format: 'json' } } }),
    ).then((outcome) => {
      if (!current) return;
      if (!outcome.ok) return setLoaded({ kind: 'error', message: outcome.problem.message });
      const rows = outcome.data as unknown as ResultRow[];
      const scores = rows.flatMap((row) => (row.result === null ? [] : [row.result.score]));
      setLoaded({ kind: 'bins', bins: scoreBins(scores), scored: scores.length });
    });
    return () => {
      current = false;
    };
  }, [listId]);

  if (loaded.kind === 'loading') return <p className="muted">Loading the scores…</p>;
  if (loaded.kind === 'error')
    return <p className="alert alert-error">The scores could not be loaded: {loaded.message}</p>;
  const summary = loaded.bins.map((bin) => `${bin.label}: ${formatCount(bin.count)}`).join(', ');
  return (
    <ChartFigure
      caption={`Scores of ${formatCount(loaded.scored)} rows`}
      summary={`Histogram of scores in bands of ten: ${summary}.`}
      chart={<HistogramChart bins={loaded.bins} />}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Score</th>
              <th scope="col">Rows</th>
            </tr>
          </thead>
          <tbody>
            {loaded.bins.map((bin) => (
              <tr key={bin.label}>
                <th scope="row">{bin.label}</th>
                <td className="number">{formatCount(bin.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    />
  );
}

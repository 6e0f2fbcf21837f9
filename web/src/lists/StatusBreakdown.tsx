/** A list's processed rows by status: a bar chart and the same figures as a table. */
import type { List } from '../api/types';
import { StatusChart } from '../charts';
import { ChartFigure } from '../components/ChartFigure';
import { formatCount } from '../lib/format';
import { STATUSES } from '../lib/statuses';

export function StatusBreakdown({ list }: { list: List }) {
  const counts = STATUSES.map((info) => ({
    status: info.status,
    label: info.label,
    count: list.counts[info.countKey],
  }));
  const processed = list.counts.processed;
  if (processed === 0)
    return <p className="muted">No rows verified yet: the breakdown by status appears as they are.</p>;
  const summary = counts
    .filter((entry) => entry.count > 0)
    .map((entry) => `${entry.label} ${formatCount(entry.count)}`)
    .join(', ');
  return (
    <ChartFigure
      caption={`Rows by status (${formatCount(processed)} verified)`}
      summary={`Bar chart of rows by status: ${summary}.`}
      chart={<StatusChart counts={counts} />}
      table={
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Rows</th>
            </tr>
          </thead>
          <tbody>
            {counts.map((entry) => (
              <tr key={entry.status}>
                <th scope="row">{entry.label}</th>
                <td className="number">{formatCount(entry.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    />
  );
}

/** Verifications per day by status over the last 30 days (GET /api/v1/usage), and use per key. */
import type { Usage } from '../api/types';
import { UsageChart } from '../charts';
import { ChartFigure } from '../components/ChartFigure';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatCount, formatDay } from '../lib/format';
import { STATUSES } from '../lib/statuses';

export function DailyUsage({ usage }: { usage: Usage }) {
  const total = usage.days.reduce((sum, day) => sum + day.total, 0);
  const busiest = usage.days.reduce<Usage['days'][number] | null>(
    (best, day) => (best === null || day.total > best.total ? day : best),
    null,
  );
  const summary =
    total === 0
      ? 'Bar chart of verifications per day: none in this period.'
      : `Bar chart of verifications per day by status: ${formatCount(total)} in all, most on ${formatDay(busiest!.date)} (${formatCount(busiest!.total)}).`;
  return (
    <section aria-labelledby="daily-heading" className="card">
      <h2 id="daily-heading">Verifications per day</h2>
      <ChartFigure
        caption={`${formatDay(usage.from)} to ${formatDay(usage.to)} (UTC), by status`}
        summary={summary}
        chart={<UsageChart days={usage.days} />}
        table={
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {STATUSES.map((info) => (
                  <th scope="col" key={info.status}>
                    {info.label}
                  </th>
                ))}
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {usage.days.map((day) => (
                <tr key={day.date}>
                  <th scope="row">{formatDay(day.date, true)}</th>
                  {STATUSES.map((info) => (
                    <td key={info.status} className="number">
                      {formatCount((day.verifications as Record<string, number>)[info.status] ?? 0)}
                    </td>
                  ))}
                  <td className="number">{formatCount(day.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        }
      />
      {usage.keys.length > 0 && (
        <>
          <h3>By key</h3>
          <ScrollRegion label="Use by key">
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Verifications</th>
                  <th scope="col">Bulk requests</th>
                  <th scope="col">List rows</th>
                </tr>
              </thead>
              <tbody>
                {usage.keys.map((key) => (
                  <tr key={key.id ?? 'dashboard'}>
                    <th scope="row">
                      {key.name}
                      {key.prefix !== undefined && key.prefix !== null && (
                        <code className="muted"> {key.prefix}</code>
                      )}
                    </th>
                    <td className="number">{formatCount(key.verifications)}</td>
                    <td className="number">{formatCount(key.bulk_requests)}</td>
                    <td className="number">{formatCount(key.list_rows)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
    </section>
  );
}

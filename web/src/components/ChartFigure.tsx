/**
 * A chart with its caption and the same numbers as a table. The chart itself is an image to
 * assistive technology; the table is what a screen reader or keyboard user reads. Charts are loaded
 * on demand (recharts is most of the dashboard's weight), so the first page stays light.
 */
import { type ReactNode, Suspense } from 'react';
import { ScrollRegion } from './ScrollRegion';

interface ChartFigureProps {
  caption: string;
  /** What the chart shows, for people who cannot see it. */
  summary: string;
  chart: ReactNode;
  table: ReactNode;
}

export function ChartFigure({ caption, summary, chart, table }: ChartFigureProps) {
  return (
    <figure className="chart">
      <figcaption>{caption}</figcaption>
      <div role="img" aria-label={summary} className="chart-area">
        <Suspense fallback={<p className="muted">Loading the chart…</p>}>{chart}</Suspense>
      </div>
      <details>
        <summary>Show the numbers</summary>
        <ScrollRegion label={`${caption}: the numbers`}>{table}</ScrollRegion>
      </details>
    </figure>
  );
}

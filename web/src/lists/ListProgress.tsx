/** How far a list is: a live progress bar while it runs, the figures in words always. */
import type { List } from '../api/types';
import { Gauge } from '../components/Gauge';
import { formatCount, formatPercent } from '../lib/format';
import { isInProgress } from './states';

export function ListProgress({ list }: { list: List }) {
  const { processed, total } = list.counts;
  const words = `${formatCount(processed)} of ${formatCount(total)} rows verified (${formatPercent(list.progress)})`;
  return (
    <div className="list-progress">
      {isInProgress(list) && (
        <Gauge
          kind="progressbar"
          label={list.name}
          value={Math.round(list.progress * 100)}
          max={100}
          valueText={words}
        />
      )}
      <p className="muted">{words}</p>
    </div>
  );
}

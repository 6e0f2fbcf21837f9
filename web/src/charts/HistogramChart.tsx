/** How many rows scored in each band of ten (Lists). Loaded on demand. */

import type { ScoreBin } from '../lib/histogram';
import { Bar, BarChart, CartesianGrid, useChartColors, XAxis, YAxis } from './chart-kit';

export default function HistogramChart({ bins }: { bins: readonly ScoreBin[] }) {
  const colors = useChartColors();
  return (
    <BarChart
      responsive
      data={[...bins]}
      style={{ width: '100%', height: 220 }}
      margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      accessibilityLayer={false}
    >
      <CartesianGrid stroke={colors.grid} vertical={false} />
      <XAxis dataKey="label" tick={{ fill: colors.text, fontSize: 12 }} stroke={colors.grid} />
      <YAxis
        allowDecimals={false}
        tick={{ fill: colors.text, fontSize: 12 }}
        stroke={colors.grid}
        width={48}
      />
      <Bar dataKey="count" name="Rows" fill={colors.accent} isAnimationActive={false} />
    </BarChart>
  );
}

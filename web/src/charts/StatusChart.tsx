/** A list's rows by status, one bar each (Lists). Loaded on demand. */
import { Bar, BarChart, CartesianGrid, Cell, useChartColors, XAxis, YAxis } from './chart-kit';

export interface StatusCount {
  status: string;
  label: string;
  count: number;
}

export default function StatusChart({ counts }: { counts: readonly StatusCount[] }) {
  const colors = useChartColors();
  return (
    <BarChart
      responsive
      layout="vertical"
      data={[...counts]}
      style={{ width: '100%', height: 32 * counts.length + 40 }}
      margin={{ top: 4, right: 16, bottom: 4, left: 8 }}
      accessibilityLayer={false}
    >
      <CartesianGrid stroke={colors.grid} horizontal={false} />
      <XAxis
        type="number"
        allowDecimals={false}
        tick={{ fill: colors.text, fontSize: 12 }}
        stroke={colors.grid}
      />
      <YAxis
        type="category"
        dataKey="label"
        width={112}
        tick={{ fill: colors.text, fontSize: 12 }}
        stroke={colors.grid}
      />
      <Bar dataKey="count" name="Rows" isAnimationActive={false}>
        {counts.map((entry) => (
          <Cell key={entry.status} fill={colors.status[entry.status] ?? colors.accent} />
        ))}
      </Bar>
    </BarChart>
  );
}

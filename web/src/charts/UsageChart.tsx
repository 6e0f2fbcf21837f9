/** Verifications per day, stacked by status (Overview). Loaded on demand: recharts stays out of the first page. */

import type { UsageDay } from '../api/types';
import { formatDay } from '../lib/format';
import { STATUSES } from '../lib/statuses';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, useChartColors, XAxis, YAxis } from './chart-kit';

export default function UsageChart({ days }: { days: readonly UsageDay[] }) {
  const colors = useChartColors();
  const data = days.map((day) => ({
    day: formatDay(day.date, true),
    ...(day.verifications as Record<string, number>),
  }));
  return (
    <BarChart
      responsive
      data={data}
      style={{ width: '100%', height: 280 }}
      margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
      accessibilityLayer={false}
    >
      <CartesianGrid stroke={colors.grid} vertical={false} />
      <XAxis dataKey="day" tick={{ fill: colors.text, fontSize: 12 }} stroke={colors.grid} minTickGap={16} />
      <YAxis
        allowDecimals={false}
        tick={{ fill: colors.text, fontSize: 12 }}
        stroke={colors.grid}
        width={48}
      />
      <Tooltip
        contentStyle={{ background: colors.surface, borderColor: colors.grid, color: colors.text }}
        labelStyle={{ color: colors.text }}
        cursor={{ fill: colors.grid, opacity: 0.3 }}
      />
      <Legend
        itemSorter={null}
        wrapperStyle={{ fontSize: 12 }}
        // Series colours are for the marks; the words keep the text colour, for contrast.
        formatter={(value) => <span style={{ color: colors.text }}>{value}</span>}
      />
      {STATUSES.map((info) => (
        <Bar
          key={info.status}
          dataKey={info.status}
          name={info.label}
          stackId="day"
          fill={colors.status[info.status]}
        />
      ))}
    </BarChart>
  );
}

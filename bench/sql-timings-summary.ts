/**
 * What a file of `bench/sql-timings.mjs` says: the statements that held the server longest, with
 * their counts and mean and worst times. `node --import tsx bench/sql-timings-summary.ts <file> [top]`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface StatementTiming {
  sql: string;
  count: number;
  totalMs: number;
  maxMs: number;
}

/** The file's statements, the longest in all first. */
export function readSqlTimings(file: string): StatementTiming[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Omit<StatementTiming, 'sql'>>;
  return Object.entries(parsed)
    .map(([sql, timing]) => ({ sql, ...timing }))
    .sort((a, b) => b.totalMs - a.totalMs);
}

/** Lines for the `top` statements, then the total of all. */
export function sqlTimingLines(timings: readonly StatementTiming[], top = 15): string[] {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const oneLine = (sql: string) => {
    const flat = sql.replace(/\s+/g, ' ').trim();
    return flat.length > 100 ? `${flat.slice(0, 97)}...` : flat;
  };
  const total = timings.reduce((sum, t) => sum + t.totalMs, 0);
  const count = timings.reduce((sum, t) => sum + t.count, 0);
  return [
    `${'total ms'.padStart(10)} ${'count'.padStart(9)} ${'mean µs'.padStart(9)} ${'max ms'.padStart(8)}  statement`,
    ...timings
      .slice(0, top)
      .map(
        (t) =>
          `${fmt(t.totalMs).padStart(10)} ${fmt(t.count).padStart(9)} ${fmt((t.totalMs * 1000) / t.count).padStart(9)} ${fmt(t.maxMs, 1).padStart(8)}  ${oneLine(t.sql)}`,
      ),
    `${fmt(total).padStart(10)} ${fmt(count).padStart(9)}  in all, ${timings.length} distinct statements`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node --import tsx bench/sql-timings-summary.ts <file> [top]');
    process.exit(2);
  }
  for (const line of sqlTimingLines(readSqlTimings(file), Number(top ?? 15))) console.log(line);
}

/**
 * A/B of the list job: `npm run bench:ab:lists -- /path/to/other/checkout [rounds]` runs the lists
 * benchmark (bench/lists.ts) against the other checkout's `mailvet serve` and this one's, back to
 * back in ABAB order (2 rounds each by default), each on a fresh data directory, and prints every
 * run and the best of each side: rows/s, bytes written per row and peak RSS, with this tree's
 * rows/s over the other's. Build both first (`npm run build`): each serves from its own dist/.
 * `BENCH_LISTS_DATABASE_URL=postgres://…` runs both on PostgreSQL instead of SQLite.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLists, type ListFigures } from './lists.ts';

const HERE = fileURLToPath(new URL('../', import.meta.url));
const other = process.argv[2];
if (other === undefined) {
  console.error('usage: npm run bench:ab:lists -- /path/to/other/checkout [rounds]');
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 2);
const databaseUrl = process.env.BENCH_LISTS_DATABASE_URL;
const trees = { A: resolve(other), B: HERE } as const;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const runs: Array<{ tree: 'A' | 'B'; figures: ListFigures }> = [];
for (let round = 0; round < rounds; round++) {
  for (const tree of ['A', 'B'] as const) {
    const figures = await benchLists({ root: trees[tree], ...(databaseUrl && { databaseUrl }) });
    runs.push({ tree, figures });
    console.log(`  ${tree} ${line(figures)}`);
  }
}

function line(f: ListFigures): string {
  const perRow = (f.diskWriteMb * 1024 * 1024) / f.rows;
  return (
    `${fmt(f.rowsPerSec)} rows/s (${fmt(f.processingRowsPerSec)} after the 202), ` +
    `${fmt(perRow)} bytes written a row, peak RSS ${fmt(f.rss.peakMb)} MB (${fmt(f.rss.peakWithDownloadMb)} with the download), ` +
    `${f.storage === 'sqlite' ? 'data directory' : 'tables'} ${fmt(f.storedMb)} MB at the end`
  );
}
const best = (tree: 'A' | 'B') =>
  runs.filter((run) => run.tree === tree).sort((x, y) => y.figures.rowsPerSec - x.figures.rowsPerSec)[0]!
    .figures;
console.log(`\nList job A/B, ${rounds} rounds each, ABAB, ${databaseUrl ? 'PostgreSQL' : 'SQLite'}`);
console.log(`  A ${trees.A}\n    best: ${line(best('A'))}`);
console.log(`  B ${trees.B}\n    best: ${line(best('B'))}`);
console.log(`  B / A rows/s  ${(best('B').rowsPerSec / best('A').rowsPerSec).toFixed(3)}`);

/**
 * A/B of the CSV upload reader (`readCsvUpload`, the first step of every uploaded list row) of this
 * checkout against another one's (`npm run bench:ab:csv -- <dir>`): both read the same generated
 * file, 200,000 rows of a contact export (eight columns, a quoted note with a comma) in 64 KB
 * chunks as a socket delivers them, in ABBA order so a slow spell of the machine hits both alike.
 * Compare the totals.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { readCsvUpload as ReadCsvUpload } from '../src/lists/upload/csv-rows.ts';

const other = process.argv[2];
if (other === undefined) {
  console.error('usage: npm run bench:ab:csv -- <another checkout> [rounds per tree, default 6]');
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 6);
const ROWS = 200_000;
const CHUNK = 64 * 1024;

const lines = ['email,first,last,company,city,country,phone,notes'];
for (let i = 0; i < ROWS; i++) {
  lines.push(
    `user${i}@example${i % 97}.com,Jane,Doe,Acme Inc,Paris,FR,+33 1 23 45 67 ${i},"met at the fair, ${i}"`,
  );
}
const file = Buffer.from(`${lines.join('\n')}\n`);
const chunks: Buffer[] = [];
for (let at = 0; at < file.length; at += CHUNK) chunks.push(file.subarray(at, at + CHUNK));

async function* source(): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

const trees = [
  { name: 'this', dir: resolve(import.meta.dirname, '..') },
  { name: `other (${resolve(other)})`, dir: resolve(other) },
];
const readers: Array<typeof ReadCsvUpload> = [];
for (const tree of trees) {
  const module = (await import(pathToFileURL(resolve(tree.dir, 'src/lists/upload/csv-rows.ts')).href)) as {
    readCsvUpload: typeof ReadCsvUpload;
  };
  readers.push(module.readCsvUpload);
}

async function readAll(read: typeof ReadCsvUpload): Promise<{ rows: number; ms: number }> {
  const started = performance.now();
  const upload = await read(source(), { maxRows: ROWS + 1 });
  let rows = 0;
  for await (const _row of upload.rows) rows++;
  return { rows, ms: performance.now() - started };
}

// Warm-up: the JIT for both.
await readAll(readers[0]!);
await readAll(readers[1]!);
const totals = [0, 0];
for (let round = 0; round < rounds; round++) {
  for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
    const { rows, ms } = await readAll(readers[i]!);
    if (rows !== ROWS) throw new Error(`${trees[i]!.name} read ${rows} rows of ${ROWS}`);
    totals[i]! += ms;
    console.log(
      `  ${trees[i]!.name.padEnd(50)} ${Math.round((rows / ms) * 1000).toLocaleString('en-US')} rows/s`,
    );
  }
}
const [mine, theirs] = totals as [number, number];
console.log(
  `\n${(file.length / 1024 / 1024).toFixed(1)} MB read ${rounds} times each: this ${Math.round(mine)} ms, other ${Math.round(theirs)} ms`,
);
console.log(`this / other (rows per second): ${(theirs / mine).toFixed(3)}`);

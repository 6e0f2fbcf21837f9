/**
 * bench/sql-timings.mjs, the benchmarks' SQL statement timings: loaded into a process with
 * `--import`, it counts and times each statement that process runs and writes them at exit, and
 * the summary reads them back longest first. A process without BENCH_SQL_TIMINGS is left as it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readSqlTimings, sqlTimingLines } from '../../bench/sql-timings-summary.ts';
import { requirePostgres } from '../helpers/services.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PRELOAD = pathToFileURL(join(ROOT, 'bench/sql-timings.mjs')).href;
// Before any test is declared: an await between declarations lets the file's after() run early.
const postgres = await requirePostgres('SQL timings of node-postgres');
const dir = await mkdtemp(join(tmpdir(), 'mailvet-sql-timings-'));
after(() => rm(dir, { recursive: true, force: true }));

/** Runs `script` (an ES module's text) in a Node process with the preload, from the repository. */
function run(script: string, env: Record<string, string>): void {
  const result = spawnSync(process.execPath, ['--import', PRELOAD, '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
}

const SQLITE_SCRIPT = `
import Database from 'better-sqlite3';
const db = new Database(':memory:');
db.exec('create table t (n integer)');
const insert = db.prepare('insert into t (n) values (?)');
db.transaction(() => { for (let i = 0; i < 5; i++) insert.run(i); }).immediate();
const one = db.prepare('select n from t where n = ?');
for (let i = 0; i < 3; i++) one.get(i);
db.prepare('select n from t').all();
let seen = 0;
for (const _row of db.prepare('select n from t order by n').iterate()) seen += 1;
if (seen !== 5) throw new Error('iterate saw ' + seen);
db.prepare('select count(*) from t').pluck().get();
`;

test('better-sqlite3: every statement counted under its SQL, transactions included', () => {
  const file = join(dir, 'sqlite.json');
  run(SQLITE_SCRIPT, { BENCH_SQL_TIMINGS: file });
  const timings = readSqlTimings(file);
  const count = (sql: string) => timings.find((t) => t.sql === sql)?.count;
  assert.equal(count('create table t (n integer)'), 1, 'exec');
  assert.equal(count('insert into t (n) values (?)'), 5, 'run');
  assert.equal(count('BEGIN IMMEDIATE'), 1, "the transaction's BEGIN");
  assert.equal(count('COMMIT'), 1, 'and its COMMIT');
  assert.equal(count('select n from t where n = ?'), 3, 'get');
  assert.equal(count('select n from t'), 1, 'all');
  assert.equal(count('select n from t order by n'), 1, 'iterate, once for all its rows');
  assert.equal(count('select count(*) from t'), 1, 'a plucked get');
  for (const t of timings) {
    assert.ok(t.totalMs >= 0 && t.maxMs <= t.totalMs, `${t.sql}: ${t.totalMs} ms in all, ${t.maxMs} at most`);
  }
  assert.deepEqual(
    timings.map((t) => t.totalMs),
    timings.map((t) => t.totalMs).sort((a, b) => b - a),
    'longest first',
  );
  const lines = sqlTimingLines(timings, 3);
  assert.equal(lines.length, 5, 'heading, three statements, the total');
  assert.match(lines.at(-1)!, / 14 {2}in all, 8 distinct statements$/);
});

test('without BENCH_SQL_TIMINGS nothing is timed or written', () => {
  // The script fails (and so does run) when the preload wrapped a statement method or a query.
  const untouched = `
import Database from 'better-sqlite3';
import pg from 'pg';
const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
for (const name of ['run', 'get', 'all', 'iterate']) {
  if (statement[name].name !== name) throw new Error(name + ' is wrapped: ' + statement[name].name);
}
if (Database.prototype.exec.name === 'timed') throw new Error('exec is wrapped');
if (pg.Client.prototype.query.name !== 'query') throw new Error('query is wrapped');
`;
  const before = readdirSync(dir).sort();
  run(untouched, { BENCH_SQL_TIMINGS: '' });
  assert.deepEqual(readdirSync(dir).sort(), before, 'no file written');
});

test('node-postgres: a query is timed from its call to its answer', { skip: postgres.skipReason }, () => {
  const file = join(dir, 'pg.json');
  run(
    `
import pg from 'pg';
const client = new pg.Client({ connectionString: ${JSON.stringify(postgres.url)} });
await client.connect();
for (let i = 0; i < 3; i++) await client.query('select $1::int as n, pg_sleep(0.01)', [i]);
await client.query({ text: 'select 2 as two' });
await client.end();
`,
    { BENCH_SQL_TIMINGS: file },
  );
  const timings = readSqlTimings(file);
  const slept = timings.find((t) => t.sql === 'select $1::int as n, pg_sleep(0.01)');
  assert.equal(slept?.count, 3);
  assert.ok(slept.totalMs >= 30, `three 10 ms sleeps took ${slept.totalMs} ms in all`);
  assert.equal(
    timings.find((t) => t.sql === 'select 2 as two')?.count,
    1,
    'a query given as a config object',
  );
});

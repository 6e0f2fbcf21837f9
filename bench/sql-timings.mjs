/**
 * SQL statement timings of a server process, for the benchmarks: loaded with
 * `node --import ./bench/sql-timings.mjs …` and BENCH_SQL_TIMINGS=<file> in the environment, it
 * times every statement the main thread runs (better-sqlite3's run, get, all, iterate and exec,
 * transactions' BEGIN and COMMIT included; node-postgres queries from call to answer) and writes
 * `{ "<sql>": { count, totalMs, maxMs } }` to the file when the process exits.
 * `npm run bench -- lists` does this with BENCH_LISTS_SQL=<file>, `bench/api.ts` with
 * BENCH_API_SQL=<file>; `node --import tsx bench/sql-timings-summary.ts <file>` prints a file.
 *
 * Plain JavaScript, so it loads before the build (dist/) without tsx. Worker threads (the SQLite
 * checkpointer) are left alone: what it is for is the time statements hold the event loop.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_SQL_TIMINGS;

/** @type {Map<string, { count: number, totalNs: bigint, maxNs: bigint }>} */
const timings = new Map();

function record(sql, ns) {
  let entry = timings.get(sql);
  if (entry === undefined) {
    entry = { count: 0, totalNs: 0n, maxNs: 0n };
    timings.set(sql, entry);
  }
  entry.count += 1;
  entry.totalNs += ns;
  if (ns > entry.maxNs) entry.maxNs = ns;
}

/** Replaces `object[name]` by a version that times each call under the statement's SQL. */
function timeMethod(object, name, sqlOf) {
  const original = object[name];
  if (typeof original !== 'function') return;
  object[name] = function timed(...args) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      record(sqlOf(this, args), process.hrtime.bigint() - started);
    }
  };
}

function timeBetterSqlite3(require) {
  let Database;
  try {
    Database = require('better-sqlite3');
  } catch {
    return;
  }
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const name of ['run', 'get', 'all']) timeMethod(statement, name, (self) => self.source);
  const iterate = statement.iterate;
  // An iteration's time is its steps' (each next()), counted once a statement.
  statement.iterate = function timedIterate(...args) {
    const sql = this.source;
    const started = process.hrtime.bigint();
    const rows = iterate.apply(this, args);
    let spent = process.hrtime.bigint() - started;
    let recorded = false;
    const finish = () => {
      if (recorded) return;
      recorded = true;
      record(sql, spent);
    };
    return {
      next() {
        const step = process.hrtime.bigint();
        const row = rows.next();
        spent += process.hrtime.bigint() - step;
        if (row.done) finish();
        return row;
      },
      return(value) {
        finish();
        return rows.return(value);
      },
      [Symbol.iterator]() {
        return this;
      },
    };
  };
  timeMethod(Database.prototype, 'exec', (_self, args) => String(args[0]));
}

function timePg(require) {
  let pg;
  try {
    pg = require('pg');
  } catch {
    return;
  }
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function timedQuery(config, values, callback) {
    const answer = query.call(this, config, values, callback);
    if (answer === undefined || typeof answer.then !== 'function') return answer;
    const sql = typeof config === 'string' ? config : String(config?.text);
    const started = process.hrtime.bigint();
    const done = () => record(sql, process.hrtime.bigint() - started);
    answer.then(done, done);
    return answer;
  };
}

if (file !== undefined && file !== '' && isMainThread) {
  // Resolved from the repository (the server's own copies), not from where this file is read.
  const require = createRequire(`${process.cwd()}/package.json`);
  timeBetterSqlite3(require);
  timePg(require);
  process.on('exit', () => {
    const ms = (ns) => Number(ns) / 1e6;
    const out = Object.fromEntries(
      [...timings].map(([sql, t]) => [sql, { count: t.count, totalMs: ms(t.totalNs), maxMs: ms(t.maxNs) }]),
    );
    writeFileSync(file, JSON.stringify(out));
  });
}

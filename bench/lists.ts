/**
 * List-job benchmark: a 100,000-row CSV list over 100 mail-world domains, uploaded
 * through the real API (`POST /api/v1/lists`, text/csv) to a `mailvet serve` child process in
 * embedded mode (SQLite, in-process worker), verified against the mail world's DNS server and SMTP
 * hosts on loopback, and processed to completion. Measured: rows/s and unique addresses/s from the
 * POST to `state=completed`, the upload alone (POST → 202), and the server process's peak RSS
 * (VmHWM of /proc/<pid>/status). The results are then downloaded (CSV) and checked row by row.
 *
 * The world: `d001.bench.test`…`d100.bench.test`, each with an MX naming one of 20 extra
 * `accept-known` hosts on 127.0.2.1…20 (five domains a host), which accept user1..user100 and
 * reject every other mailbox. Each domain has 1,000 rows: user1..user970 once (10% known, 90%
 * rejected) and 30 repeats of those (3% duplicates), shuffled so the domains interleave.
 *
 * BENCH_LISTS_PROFILE=<dir> writes a CPU profile (`--cpu-prof`) of the server process there;
 * BENCH_LISTS_SQL=<file> times its SQL statements (bench/sql-timings.mjs) and prints the longest;
 * BENCH_LISTS_NODE_FLAGS adds Node or V8 flags to the server's command line (memory experiments).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'csv-parse';
import pg from 'pg';
import type { ListView } from '../src/lists/list-view.ts';
import { schemaFactory } from '../tests/helpers/postgres-schemas.ts';
import type { Zones } from '../tests/mailworld/dns-server.ts';
import { type MailWorld, startMailWorld } from '../tests/mailworld/mail-world.ts';
import { type SmtpHost, startSmtpHost } from '../tests/mailworld/smtp-server.ts';
import { baseEnvironment, createKey } from '../tests/scale-out/processes.ts';
import { ensureBuilt } from './build.ts';
import { mulberry32 } from './random.ts';
import { readSqlTimings, sqlTimingLines } from './sql-timings-summary.ts';

export interface ListBenchOptions {
  /** Domains in the list (default 100). */
  domains?: number;
  /** Rows per domain (default 1,000). */
  rowsPerDomain?: number;
  /** Share of each domain's rows that repeat an earlier address (default 0.03). */
  duplicateShare?: number;
  /** Extra SMTP hosts the domains are spread over (default 20). */
  hosts?: number;
  /** Longest wait for the list to complete, ms (default 150,000): past it the bench fails. */
  guardMs?: number;
  /** Directory for a CPU profile of the server process; none when absent. */
  profileDir?: string;
  /** The checkout whose `bin/mailvet` serves (A/B runs: `bench/lists-ab.ts`); this one by default. */
  root?: string;
  /**
   * A PostgreSQL server (`postgres://…`): the server stores in a fresh schema of its own there
   * (dropped after) instead of SQLite; its WAL bytes stand in for the storage writes.
   */
  databaseUrl?: string;
}

export interface ListFigures {
  rows: number;
  /** Distinct addresses in the upload, as the bench made them. */
  uniqueAddresses: number;
  /** Distinct addresses the server counted. */
  serverUnique: number;
  domains: number;
  hosts: number;
  uploadBytes: number;
  /** POST → 202 (the whole body read, parsed and stored), ms. */
  uploadMs: number;
  /** POST → state=completed seen by polling (every 100 ms), ms. */
  totalMs: number;
  /** Rows / total wall time. */
  rowsPerSec: number;
  /** Unique addresses / total wall time. */
  uniquePerSec: number;
  /** Rows / (202 → completed): the processing alone, without the upload. */
  processingRowsPerSec: number;
  /** The server's own started_at → finished_at, ms. */
  serverRunMs: number;
  /** GET /results (CSV) downloaded and checked, ms. */
  resultsMs: number;
  resultRows: number;
  /** Final counts by status (GET /lists/{id}). */
  statuses: Record<string, number>;
  /** Server process memory, MB (MiB): peak while uploading and processing, peak including the download. */
  rss: { idleMb: number; afterUploadMb: number; peakMb: number; peakWithDownloadMb: number };
  /**
   * CPU time over POST → completed, seconds: the server process, its main thread (the event loop),
   * this process (mail world, client), and the server's main thread's time runnable but waiting for
   * a CPU (/proc/<pid>/schedstat): the share of the wall time other work on the machine took from it.
   */
  cpu: { serverSec: number; serverMainSec: number; benchSec: number; wallSec: number; serverWaitSec: number };
  /** Bytes the server process caused to be written to storage over POST → completed, MB (/proc/<pid>/io). */
  diskWriteMb: number;
  /** Of which over the upload (POST → 202), MB. */
  uploadWriteMb: number;
  /** Where the server stored: SQLite (writes counted from /proc) or PostgreSQL (its WAL bytes). */
  storage: 'sqlite' | 'postgres';
  /** PostgreSQL's checkpoints over POST → completed (each makes the pages changed after it whole in the WAL). */
  checkpointsDuring?: number;
  /**
   * What the data takes once the list completed, MB: SQLite's data directory (database, WAL), or
   * the tables of the server's schema on PostgreSQL (with their indexes and TOAST).
   */
  storedMb: number;
  /** What the SMTP hosts saw. */
  smtp: { connections: number; mailCommands: number; rcptCommands: number };
  /** Targets: ≥ 4,000 rows/s (twice the first floor of 2,000) and ≤ 300 MB peak RSS. */
  meetsThroughput: boolean;
  meetsMemory: boolean;
  loadAverage: { before: number; after: number };
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const POLL_MS = 100;
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on every Linux that matters). */
const CLOCK_TICKS = 100;
const MB = 1024 * 1024;

/** Runs the benchmark once and returns its figures; throws if the list does not complete whole. */
export async function benchLists(options: ListBenchOptions = {}): Promise<ListFigures> {
  const domainCount = options.domains ?? 100;
  const perDomain = options.rowsPerDomain ?? 1000;
  const hostCount = options.hosts ?? 20;
  const guardMs = options.guardMs ?? 150_000;
  const list = buildList(domainCount, perDomain, options.duplicateShare ?? 0.03);
  const body = Buffer.from(list.csv);

  const loadBefore = loadavg()[0] ?? 0;
  const { world, hosts } = await startBenchWorld(domainCount, hostCount);
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-lists-'));
  const root = options.root ?? ROOT;
  const schemas = options.databaseUrl === undefined ? undefined : schemaFactory(options.databaseUrl);
  const postgres = schemas === undefined ? undefined : await schemas.create();
  const env = {
    ...world.env,
    ...(postgres && { DATABASE_URL: postgres.url, MAILVET_SECRET_KEY: randomBytes(32).toString('hex') }),
    MAILVET_SMTP_ALLOW_PRIVATE: 'true',
    MAILVET_DATA_DIR: dataDir,
    MAILVET_RESULT_TTL: '0',
    // A timed-out address would otherwise be checked again 5 minutes later, past the guard.
    MAILVET_LIST_RECHECK_MS: '2000',
  };
  let server: ServerProcess | undefined;
  try {
    const { key } = await createKey(
      'bench',
      ['--plan', 'pro', '--monthly-quota', '1000000', '--rate-limit', '1000'],
      env,
      root,
    );
    server = await spawnServer(env, options.profileDir, root);
    // What the server caused to be written: its own writes on SQLite, the WAL PostgreSQL wrote.
    const written = postgres === undefined ? () => storageWrites(server!.pid) : () => walBytes(postgres.url);
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server!.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
      });
    // A checkpoint first: after one, each page's first change writes the whole page to the WAL
    // again, so a checkpoint falling inside the run (every ~500 MB of WAL, or 5 minutes) added a
    // quarter to its bytes a row, depending only on what ran before.
    if (postgres !== undefined) await query(postgres.url, 'checkpoint');
    const checkpointsBefore = postgres === undefined ? 0 : await checkpointsMade(postgres.url);
    const idle = await memory(server.pid);
    const serverCpuBefore = await cpuSeconds(server.pid);
    const schedBefore = await schedSeconds(server.pid);
    const writtenBefore = await written();
    const benchCpuBefore = process.cpuUsage();

    const started = performance.now();
    const created = await api('/lists?name=bench-100k', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body,
    });
    const createdBody = await created.text();
    const uploadMs = performance.now() - started;
    if (created.status !== 202) throw new Error(`POST /lists: ${created.status} ${createdBody}`);
    const { id } = JSON.parse(createdBody) as ListView;
    const afterUpload = await memory(server.pid);
    const writtenByUpload = (await written()) - writtenBefore;

    let view: ListView;
    for (;;) {
      const response = await api(`/lists/${id}`);
      view = (await response.json()) as ListView;
      if (response.status !== 200) throw new Error(`GET /lists/${id}: ${response.status}`);
      if (view.state === 'completed') break;
      if (view.state !== 'queued' && view.state !== 'running')
        throw new Error(`the list stopped as ${view.state}: ${JSON.stringify(view)}`);
      if (performance.now() - started > guardMs) {
        throw new Error(
          `the list is still ${view.state} after ${guardMs / 1000} s: ${view.counts.processed} of ${view.counts.total} rows processed`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const totalMs = performance.now() - started;
    const processed = await memory(server.pid);
    const serverCpu = (await cpuSeconds(server.pid)) - serverCpuBefore;
    const schedAfter = await schedSeconds(server.pid);
    const writtenInAll = (await written()) - writtenBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    if (view.counts.total !== list.rows.length || view.counts.processed !== list.rows.length) {
      throw new Error(
        `the list completed with ${view.counts.processed} of ${view.counts.total} rows processed; ${list.rows.length} were uploaded`,
      );
    }
    if (view.counts.unique !== list.unique) {
      throw new Error(`the server counted ${view.counts.unique} unique addresses, not ${list.unique}`);
    }

    const downloadStarted = performance.now();
    const resultRows = await checkResults(await api(`/lists/${id}/results?format=csv`), list.rows);
    const resultsMs = performance.now() - downloadStarted;
    const downloaded = await memory(server.pid);

    const { total, unique, processed: _processed, ...statuses } = view.counts;
    const sum = (pick: (host: SmtpHost) => number) => hosts.reduce((n, host) => n + pick(host), 0);
    const rowsPerSec = (list.rows.length / totalMs) * 1000;
    return {
      rows: total,
      uniqueAddresses: list.unique,
      serverUnique: unique,
      domains: domainCount,
      hosts: hostCount,
      uploadBytes: body.length,
      uploadMs,
      totalMs,
      rowsPerSec,
      uniquePerSec: (list.unique / totalMs) * 1000,
      processingRowsPerSec: (list.rows.length / (totalMs - uploadMs)) * 1000,
      serverRunMs: Date.parse(view.finished_at ?? '') - Date.parse(view.started_at ?? ''),
      resultsMs,
      resultRows,
      statuses: Object.fromEntries(Object.entries(statuses).filter(([, n]) => n > 0)),
      rss: {
        idleMb: idle.rssKb / 1024,
        afterUploadMb: afterUpload.rssKb / 1024,
        peakMb: processed.peakKb / 1024,
        peakWithDownloadMb: downloaded.peakKb / 1024,
      },
      cpu: {
        serverSec: serverCpu,
        serverMainSec: schedAfter.runSec - schedBefore.runSec,
        serverWaitSec: schedAfter.waitSec - schedBefore.waitSec,
        benchSec: (benchCpu.user + benchCpu.system) / 1e6,
        wallSec: totalMs / 1000,
      },
      diskWriteMb: writtenInAll / MB,
      uploadWriteMb: writtenByUpload / MB,
      storage: postgres === undefined ? 'sqlite' : 'postgres',
      ...(postgres && { checkpointsDuring: (await checkpointsMade(postgres.url)) - checkpointsBefore }),
      storedMb:
        (postgres === undefined ? await directoryBytes(dataDir) : await tableBytes(postgres.url)) / MB,
      smtp: {
        connections: sum((h) => h.stats.connections),
        mailCommands: sum((h) => h.stats.mailCommands),
        rcptCommands: sum((h) => h.stats.rcptCommands),
      },
      meetsThroughput: rowsPerSec >= 4000,
      meetsMemory: processed.peakKb / 1024 <= 300 && downloaded.peakKb / 1024 <= 300,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    };
  } finally {
    await server?.stop();
    await Promise.all([world.close(), ...hosts.map((host) => host.close())]);
    await rm(dataDir, { recursive: true, force: true });
    await schemas?.dropAll();
  }
}

/** Prints the figures as `npm run bench` shows them. */
export function printListFigures(f: ListFigures): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(
    `\nList job, ${fmt(f.rows)}-row CSV (${fmt(f.uniqueAddresses)} unique) over ${f.domains} domains on ${f.hosts} SMTP hosts, ` +
      `\`mailvet serve\` child (${f.storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, in-process worker), DNS and SMTP on loopback`,
  );
  console.log(`  upload (POST → 202)           ${s(f.uploadMs)} for ${(f.uploadBytes / MB).toFixed(1)} MB`);
  console.log(
    `  POST → completed              ${s(f.totalMs)} (server's started_at → finished_at ${s(f.serverRunMs)})`,
  );
  console.log(
    `  rows/s                        ${fmt(f.rowsPerSec)} (target ≥ 4,000): ${f.meetsThroughput ? 'met' : 'NOT met'}`,
  );
  console.log(`  unique addresses/s            ${fmt(f.uniquePerSec)}`);
  console.log(`  rows/s after the 202          ${fmt(f.processingRowsPerSec)} (processing alone)`);
  console.log(
    `  server peak RSS (VmHWM)       ${fmt(f.rss.peakMb)} MB, ${fmt(f.rss.peakWithDownloadMb)} MB with the download (target ≤ 300): ${f.meetsMemory ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  server RSS                    ${fmt(f.rss.idleMb)} MB idle (listening), ${fmt(f.rss.afterUploadMb)} MB after the upload`,
  );
  console.log(`  results download (CSV)        ${s(f.resultsMs)}, ${fmt(f.resultRows)} rows checked`);
  console.log(
    `  statuses                      ${Object.entries(f.statuses)
      .map(([status, n]) => `${status} ${fmt(n)}`)
      .join(', ')}`,
  );
  console.log(
    `  SMTP                          ${fmt(f.smtp.connections)} connections, ${fmt(f.smtp.mailCommands)} MAIL, ${fmt(f.smtp.rcptCommands)} RCPT`,
  );
  console.log(
    `  CPU over POST → completed     server ${f.cpu.serverSec.toFixed(1)} s, bench + mail world ${f.cpu.benchSec.toFixed(1)} s, in ${f.cpu.wallSec.toFixed(1)} s wall`,
  );
  console.log(
    `  server main thread            ran ${f.cpu.serverMainSec.toFixed(1)} s, waited ${f.cpu.serverWaitSec.toFixed(1)} s for a CPU (runnable, not running)`,
  );
  const what = f.storage === 'sqlite' ? 'server writes to storage    ' : 'PostgreSQL WAL written      ';
  const how = f.storage === 'sqlite' ? 'SQLite database and WAL' : 'pg_current_wal_lsn difference';
  console.log(
    `  ${what}  ${fmt(f.diskWriteMb)} MB (${how}), ${fmt((f.diskWriteMb * MB) / f.rows)} bytes a row (target ≤ 2,048); ${fmt(f.uploadWriteMb)} MB of it by the upload`,
  );
  if (f.storage === 'sqlite') console.log(`  data directory at the end     ${fmt(f.storedMb)} MB`);
  else console.log(`  tables at the end             ${fmt(f.storedMb)} MB (with indexes)`);
  if (f.checkpointsDuring !== undefined) {
    console.log(
      `  PostgreSQL checkpoints        ${f.checkpointsDuring} during the run (one made just before it)`,
    );
  }
  console.log(
    `  load average (1 min) before ${f.loadAverage.before.toFixed(2)}, after ${f.loadAverage.after.toFixed(2)} on ${availableParallelism()} cores`,
  );
}

interface BenchList {
  csv: string;
  /** The rows in upload order: customer id and address. */
  rows: Array<{ id: string; email: string }>;
  unique: number;
}

/** The upload: `customer_id,email,note`, domains interleaved, deterministic (seeded shuffle). */
function buildList(domainCount: number, perDomain: number, duplicateShare: number): BenchList {
  const random = mulberry32(6);
  const duplicates = Math.round(perDomain * duplicateShare);
  const distinct = perDomain - duplicates;
  const emails: string[] = [];
  for (let d = 1; d <= domainCount; d++) {
    const domain = benchDomain(d);
    for (let u = 1; u <= distinct; u++) emails.push(`user${u}@${domain}`);
    for (let i = 0; i < duplicates; i++) emails.push(`user${1 + Math.floor(random() * distinct)}@${domain}`);
  }
  for (let i = emails.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [emails[i], emails[j]] = [emails[j]!, emails[i]!];
  }
  const rows = emails.map((email, i) => ({ id: `C${String(i + 1).padStart(6, '0')}`, email }));
  // Every tenth row has a quoted note holding a comma, so the parser's quoting path is used too.
  const lines = rows.map(({ id, email }, i) => `${id},${email},${i % 10 === 0 ? '"vip, since 2020"' : ''}`);
  return {
    csv: `customer_id,email,note\n${lines.join('\n')}\n`,
    rows,
    unique: domainCount * distinct,
  };
}

export function benchDomain(n: number): string {
  return `d${String(n).padStart(3, '0')}.bench.test`;
}

/**
 * The mail world plus `hostCount` accept-known hosts on 127.0.2.1… on the world's SMTP port, and the
 * bench domains' zones (MX → mxNN.lists.bench.test → 127.0.2.NN). Starts over on another port if
 * the world's port is taken on one of the extra addresses.
 */
export async function startBenchWorld(
  domainCount: number,
  hostCount: number,
): Promise<{ world: MailWorld; hosts: SmtpHost[] }> {
  const exchange = (h: number) => `mx${String(h + 1).padStart(2, '0')}.lists.bench.test`;
  const zones: Zones = {};
  for (let h = 0; h < hostCount; h++) zones[exchange(h)] = { ttl: 3600, a: [`127.0.2.${h + 1}`] };
  for (let d = 1; d <= domainCount; d++) {
    zones[benchDomain(d)] = { ttl: 3600, mx: [{ exchange: exchange((d - 1) % hostCount), priority: 10 }] };
  }
  for (let attempt = 1; ; attempt++) {
    const world = await startMailWorld({ zones });
    const started = await Promise.allSettled(
      Array.from({ length: hostCount }, (_, h) =>
        startSmtpHost({
          behaviour: 'accept-known',
          name: exchange(h),
          host: `127.0.2.${h + 1}`,
          port: world.smtpPort,
        }),
      ),
    );
    const hosts = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = started.find((result) => result.status === 'rejected');
    if (failure === undefined) return { world, hosts };
    await Promise.all([world.close(), ...hosts.map((host) => host.close())]);
    if (attempt >= 5) throw failure.reason;
  }
}

export interface ServerProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Bytes of WAL the PostgreSQL server has written so far (its current WAL position). */
async function walBytes(url: string): Promise<number> {
  const [row] = await query<{ at: string }>(
    url,
    "select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as at",
  );
  return Number(row?.at ?? Number.NaN);
}

/** Bytes the tables of the URL's schema take, with their indexes and TOAST. */
async function tableBytes(url: string): Promise<number> {
  const [row] = await query<{ bytes: string }>(
    url,
    `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r'`,
  );
  return Number(row?.bytes ?? Number.NaN);
}

/** The checkpoints the PostgreSQL server has made so far, timed or asked for by WAL volume. */
async function checkpointsMade(url: string): Promise<number> {
  const [row] = await query<{ made: string }>(
    url,
    'select (checkpoints_timed + checkpoints_req)::text as made from pg_stat_bgwriter',
  );
  return Number(row?.made ?? Number.NaN);
}

async function query<T extends object>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * `node bin/mailvet serve` on PORT=0 (URL from its "listening on" line, as the scale-out suites'
 * `spawnServe` reads it, which does not give the pid this bench samples). Its stdout is drained.
 * The build is made first when it is missing or stale (bench/build.ts).
 */
export async function spawnServer(
  env: Record<string, string>,
  profileDir?: string,
  root = ROOT,
): Promise<ServerProcess> {
  await ensureBuilt(root);
  const inherited = baseEnvironment();
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  // Node or V8 flags to try on the server alone (BENCH_LISTS_NODE_FLAGS="--optimize-for-size").
  const flags = (process.env.BENCH_LISTS_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
  // BENCH_LISTS_SQL=<file>: the server's SQL statement timings (bench/sql-timings.mjs).
  const sqlFile = process.env.BENCH_LISTS_SQL;
  const timings = sqlFile ? ['--import', pathToFileURL(SQL_TIMINGS).href] : [];
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, ...timings, ...flags, 'bin/mailvet', 'serve'],
    {
      cwd: root,
      env: {
        ...inherited,
        PORT: '0',
        HOST: '127.0.0.1',
        ...env,
        ...(sqlFile && { BENCH_SQL_TIMINGS: sqlFile }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line in 20 s; stderr: ${stderr}`)),
      20_000,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /"msg":"listening on (http:\/\/[^"]+)"/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited ${code} before listening; stderr: ${stderr}`));
    });
  });
  return {
    pid: child.pid!,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Current and peak resident set of a process, kB (/proc/<pid>/status VmRSS and VmHWM). */
export async function memory(pid: number): Promise<{ rssKb: number; peakKb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(match[1]);
  };
  return { rssKb: field('VmRSS'), peakKb: field('VmHWM') };
}

/** User + system CPU time of a process so far, seconds (/proc/<pid>/stat). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Bytes of the files directly in `dir`. */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) {
    const info = await stat(join(dir, name));
    if (info.isFile()) total += info.size;
  }
  return total;
}

/** Bytes the process caused to be written to storage so far (write_bytes of /proc/<pid>/io). */
async function storageWrites(pid: number): Promise<number> {
  const match = /^write_bytes:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/io`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN);
}

/** Time the process's main thread has run, and waited runnable for a CPU, so far, seconds. */
async function schedSeconds(pid: number): Promise<{ runSec: number; waitSec: number }> {
  const [runNs, waitNs] = (await readFile(`/proc/${pid}/schedstat`, 'utf8')).trim().split(' ');
  return { runSec: Number(runNs) / 1e9, waitSec: Number(waitNs) / 1e9 };
}

/**
 * Reads the CSV download and checks it: the uploaded header plus the result columns, one row per
 * uploaded row in upload order (customer id and address as uploaded), every row with a status.
 * Returns the number of data rows; throws on any difference.
 */
async function checkResults(response: Response, rows: BenchList['rows']): Promise<number> {
  if (response.status !== 200 || response.body === null) {
    throw new Error(`GET /results: ${response.status} ${await response.text()}`);
  }
  const records = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>).pipe(
    parse({ relax_column_count: true }),
  );
  let count = -1;
  let statusIndex = -1;
  for await (const record of records as AsyncIterable<string[]>) {
    if (count === -1) {
      if (record[0] !== 'customer_id' || record[1] !== 'email' || record[2] !== 'note')
        throw new Error(`the results header is ${record.join(',')}`);
      statusIndex = record.indexOf('mailvet_status');
      if (statusIndex === -1) throw new Error('the results have no mailvet_status column');
      count = 0;
      continue;
    }
    const expected = rows[count];
    if (expected === undefined) throw new Error(`the results have more than ${rows.length} rows`);
    if (record[0] !== expected.id || record[1] !== expected.email)
      throw new Error(
        `results row ${count + 1} is ${record[0]},${record[1]}, not ${expected.id},${expected.email}`,
      );
    if (!record[statusIndex]) throw new Error(`results row ${count + 1} (${expected.email}) has no status`);
    count++;
  }
  if (count !== rows.length) throw new Error(`the results have ${count} rows, not ${rows.length}`);
  return count;
}

const SQL_TIMINGS = fileURLToPath(new URL('./sql-timings.mjs', import.meta.url));

/** With BENCH_LISTS_SQL=<file>: the statements that held the last server longest. */
export function printListSqlTimings(): void {
  const file = process.env.BENCH_LISTS_SQL;
  if (!file) return;
  console.log(`  SQL statements on the server's event loop, upload to download (${file}):`);
  for (const line of sqlTimingLines(readSqlTimings(file))) console.log(`    ${line}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printListFigures(await benchLists({ profileDir: process.env.BENCH_LISTS_PROFILE }));
  printListSqlTimings();
}

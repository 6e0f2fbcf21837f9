/**
 * API benchmark: autocannon against POST /api/v1/verify and, in the same run, a bare
 * Fastify route taking the same request and answering a JSON body of the same size. Short rounds
 * alternate (bare, api, api-uncached, then api-uncached, api, bare, …) so machine noise hits every
 * target alike, and each target's figure is its total over all its rounds: on a shared 2-core VM
 * the same server's rate swings by half within a minute, and the best single round of each target
 * (as this reported before) compared moments of different speed.
 *
 * Each server runs in its own child process (bench/api-servers.ts): autocannon, here, and the
 * server under load would otherwise share one event loop, and on a 2-core machine the load
 * generator would starve the server. The API servers log as shipped (one line per request, to
 * /dev/null), unless BENCH_API_LOGGING=off; the bare route logs nothing.
 *
 * BENCH_API_PROFILE=<dir> writes a CPU profile (`--cpu-prof`) of the cached API server there;
 * BENCH_API_SQL=<file> times its SQL statements (bench/sql-timings.mjs) and prints the longest.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import type { ServerReady, ServerRole } from './api-servers.ts';
import { readSqlTimings, sqlTimingLines } from './sql-timings-summary.ts';
import { median } from './stats.ts';

export interface ApiBenchOptions {
  /** Concurrent connections (default 50). */
  connections?: number;
  /** Seconds per measured round (default 3). */
  durationSec?: number;
  /** Measured rounds per target (default 8). */
  rounds?: number;
  /** Distinct addresses cycled through (default 1,000), all of one length. */
  addresses?: number;
  /** Directory for a CPU profile of the cached API server; none when absent. */
  profileDir?: string;
  /** File for the cached API server's SQL statement timings (bench/sql-timings.mjs); none when absent. */
  sqlTimingsFile?: string;
}

/** One target's figures in one round. */
export interface LoadFigures {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests that failed or did not get a 2xx (must be 0 for the round to count). */
  failures: number;
  /**
   * The server process's CPU time (user and system) a request, µs; undefined where /proc is not.
   * Steadier than requests a second on a shared 2-core machine, where the load generator competes
   * for the same cores.
   */
  cpuMicrosPerRequest?: number;
}

export type Target = 'bare' | 'api' | 'api-uncached';

export interface ApiFigures {
  connections: number;
  durationSec: number;
  /** Bytes of the JSON body every target answers with. */
  responseBytes: number;
  /** Every measured round, in the order run. */
  rounds: Array<{ target: Target; figures: LoadFigures }>;
  /**
   * Each target over all its rounds: requests served / time, CPU / requests, and the median of
   * its rounds' p50 and p99.
   */
  overall: Record<Target, LoadFigures>;
  /** api / bare requests served in the same run (target ≥ 0.60), and likewise for api-uncached (≥ 0.55). */
  ratio: number;
  uncachedRatio: number;
  /** Target met: ratio ≥ 0.60 with the api's p99 at most 2× the bare route's, and ≥ 0.55 uncached. */
  meetsTarget: boolean;
  /** Whether the API servers logged as shipped (one line per request); BENCH_API_LOGGING=off turns it off. */
  logging: boolean;
  /** The machine's 1-minute load average before and after: other work skews every figure. */
  loadAverage: { before: number; after: number };
  /** The cached server's SQL statement timings, when asked for. */
  sqlTimingsFile?: string;
}

const SERVERS = fileURLToPath(new URL('./api-servers.ts', import.meta.url));
const SQL_TIMINGS = pathToFileURL(fileURLToPath(new URL('./sql-timings.mjs', import.meta.url))).href;
const WARM_UP_SEC = 2;

export interface Child {
  process: ChildProcess;
  ready: ServerReady;
}

/**
 * Forks a server child: of this checkout, or of another one's `bench/api-servers.ts` (A/B runs).
 * BENCH_SQL_TIMINGS=<file> in `env` times its SQL statements into that file. `nodeFlags` are Node
 * options for the child (an A/B of flags).
 */
export function startChild(
  role: ServerRole,
  env: Record<string, string> = {},
  profileDir?: string,
  servers = SERVERS,
  nodeFlags: readonly string[] = [],
): Promise<Child> {
  const execArgv = [
    ...nodeFlags,
    '--import',
    'tsx',
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ...(env.BENCH_SQL_TIMINGS ? ['--import', SQL_TIMINGS] : []),
  ];
  const child = fork(servers, [], {
    execArgv,
    cwd: dirname(dirname(servers)),
    env: { ...process.env, ...env, BENCH_API_ROLE: role },
    // The servers' log lines go to /dev/null: written as a deployment writes them, read by nobody.
    stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ process: child, ready: ready as ServerReady }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code} before listening`)));
  });
}

export function stopChild(child: Child): Promise<void> {
  // A server that died under load has sent its 'exit' already: waiting for another would hang.
  if (child.process.exitCode !== null || child.process.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.process.removeAllListeners('exit');
    child.process.once('exit', () => resolve());
    child.process.send('stop');
  });
}

/** `{"email":"u0001@d0001.bench.test"}`…: distinct addresses of one length, all answered by the DNS world. */
export function verifyBodies(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i).padStart(4, '0');
    return JSON.stringify({ email: `u${n}@d${n}.bench.test` });
  });
}

/**
 * Asks the API for every address once, a few at a time, before any round is measured. A timed
 * warm-up alone does not do it: autocannon's connections each go through the bodies in the same
 * order, all 50 asking for one address at once, so 1,000 addresses take 50,000 requests to pass
 * (about four seconds here), and every request until then runs the whole pipeline.
 */
export async function answerEveryAddress(
  port: number,
  key: string,
  bodies: readonly string[],
): Promise<void> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/verify`, {
        method: 'POST',
        headers,
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`the API answered ${response.status} to ${body}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** CPU time (user and system) a process has used so far, µs; undefined without /proc. */
export function cpuMicrosOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, after the command name in parentheses: clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of /proc's CPU times (100 on every mainstream kernel). */
const CLOCK_TICKS_PER_SECOND = 100;

/** One round of autocannon POSTing `bodies` (cycled) to a server (its process `pid`, for its CPU time). */
export async function loadRound(
  target: { port: number; path: string; key: string; pid?: number },
  bodies: readonly string[],
  connections: number,
  seconds: number,
): Promise<LoadFigures & { requests: number }> {
  const cpuBefore = cpuMicrosOf(target.pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` },
    requests: bodies.map((body) => ({ method: 'POST', path: target.path, body })),
  });
  const cpuAfter = cpuMicrosOf(target.pid);
  return {
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
    ...(cpuBefore !== undefined &&
      cpuAfter !== undefined &&
      result.requests.total > 0 && { cpuMicrosPerRequest: (cpuAfter - cpuBefore) / result.requests.total }),
  };
}

/** One target's rounds as one figure: totals for the rate and CPU, medians for the latencies. */
export function combineRounds(rounds: ReadonlyArray<LoadFigures & { requests: number }>): LoadFigures {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const seconds = rounds.reduce((sum, r) => sum + r.requests / r.requestsPerSec, 0);
  const cpu = rounds.every((r) => r.cpuMicrosPerRequest !== undefined)
    ? rounds.reduce((sum, r) => sum + r.cpuMicrosPerRequest! * r.requests, 0) / requests
    : undefined;
  return {
    requestsPerSec: requests / seconds,
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
    ...(cpu !== undefined && { cpuMicrosPerRequest: cpu }),
  };
}

/** Runs the benchmark and returns its figures. */
export async function benchApi(options: ApiBenchOptions = {}): Promise<ApiFigures> {
  const connections = options.connections ?? 50;
  const durationSec = options.durationSec ?? 3;
  const rounds = options.rounds ?? 8;
  const bodies = verifyBodies(options.addresses ?? 1000);

  const loadBefore = loadavg()[0] ?? 0;
  const children: Child[] = [];
  try {
    const sqlEnv: Record<string, string> = options.sqlTimingsFile
      ? { BENCH_SQL_TIMINGS: options.sqlTimingsFile }
      : {};
    const api = await startChild('api', sqlEnv, options.profileDir);
    children.push(api);
    const uncached = await startChild('api-uncached');
    children.push(uncached);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${api.ready.key}` };
    const sample = await fetch(`http://127.0.0.1:${api.ready.port}/api/v1/verify`, {
      method: 'POST',
      headers,
      body: bodies[0],
    });
    const answer = await sample.text();
    if (sample.status !== 200) throw new Error(`the API answered ${sample.status}: ${answer}`);
    const bare = await startChild('bare', { BENCH_BARE_ANSWER: answer });
    children.push(bare);
    const bareAnswer = await (
      await fetch(`http://127.0.0.1:${bare.ready.port}/bare`, { method: 'POST', headers, body: bodies[0] })
    ).text();
    if (bareAnswer.length !== answer.length)
      throw new Error('the bare route does not answer the same number of bytes');

    const targets: Record<Target, { port: number; path: string; key?: string; pid?: number }> = {
      bare: { port: bare.ready.port, path: '/bare', pid: bare.process.pid },
      api: { port: api.ready.port, path: '/api/v1/verify', key: api.ready.key, pid: api.process.pid },
      'api-uncached': {
        port: uncached.ready.port,
        path: '/api/v1/verify',
        key: uncached.ready.key,
        pid: uncached.process.pid,
      },
    };
    const load = (target: Target, seconds: number) => {
      const { port, path, key, pid } = targets[target];
      return loadRound({ port, path, key: key ?? api.ready.key ?? '', pid }, bodies, connections, seconds);
    };

    const order: Target[] = ['bare', 'api', 'api-uncached'];
    // Warm-up: the result and DNS caches (every address answered once), then JIT and connections.
    await answerEveryAddress(api.ready.port, api.ready.key ?? '', bodies);
    await answerEveryAddress(uncached.ready.port, uncached.ready.key ?? '', bodies);
    for (const target of order) await load(target, WARM_UP_SEC);
    const measured: Array<{ target: Target; figures: LoadFigures & { requests: number } }> = [];
    for (let round = 0; round < rounds; round++) {
      // ABC CBA …: a drift of the machine's speed weighs on every target alike.
      for (const target of round % 2 === 0 ? order : [...order].reverse()) {
        const figures = await load(target, durationSec);
        if (figures.failures > 0) throw new Error(`${target}: ${figures.failures} failed requests`);
        measured.push({ target, figures });
      }
    }
    const overall = Object.fromEntries(
      order.map((target) => [
        target,
        combineRounds(measured.filter((r) => r.target === target).map((r) => r.figures)),
      ]),
    ) as Record<Target, LoadFigures>;
    const ratio = overall.api.requestsPerSec / overall.bare.requestsPerSec;
    const uncachedRatio = overall['api-uncached'].requestsPerSec / overall.bare.requestsPerSec;
    return {
      connections,
      durationSec,
      responseBytes: Buffer.byteLength(answer),
      rounds: measured,
      overall,
      ratio,
      uncachedRatio,
      meetsTarget: ratio >= 0.6 && overall.api.p99Ms <= 2 * overall.bare.p99Ms && uncachedRatio >= 0.55,
      logging: process.env.BENCH_API_LOGGING !== 'off',
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      ...(options.sqlTimingsFile && { sqlTimingsFile: options.sqlTimingsFile }),
    };
  } finally {
    await Promise.all(children.map(stopChild));
  }
}

/** Prints the figures as `npm run bench` shows them. */
export function printApiFigures(figures: ApiFigures): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const cpu = (f: LoadFigures) =>
    f.cpuMicrosPerRequest === undefined ? '' : `   CPU ${f.cpuMicrosPerRequest.toFixed(1)} µs a request`;
  const line = (label: string, f: LoadFigures) =>
    `  ${label.padEnd(30)}${fmt(f.requestsPerSec).padStart(8)} req/s   p50 ${f.p50Ms} ms   p99 ${f.p99Ms} ms${cpu(f)}`;
  console.log(
    `\nHTTP API, ${figures.connections} connections, ${figures.rounds.length / 3} rounds of ${figures.durationSec} s each, alternating, totals, ` +
      `${figures.responseBytes}-byte answers, API logging ${figures.logging ? 'on (one line a request, to /dev/null)' : 'off'}, servers in child processes`,
  );
  console.log(line('bare Fastify route', figures.overall.bare));
  console.log(line('POST /api/v1/verify (cached)', figures.overall.api));
  console.log(line('POST /api/v1/verify (no cache)', figures.overall['api-uncached']));
  console.log(
    `  ratio api / bare              ${figures.ratio.toFixed(2)} (target ≥ 0.60, p99 ≤ 2× the bare route's)`,
  );
  console.log(`  ratio api (no cache) / bare   ${figures.uncachedRatio.toFixed(2)} (target ≥ 0.55)`);
  const { bare, api } = figures.overall;
  if (bare.cpuMicrosPerRequest !== undefined && api.cpuMicrosPerRequest !== undefined) {
    console.log(
      `  CPU a request, bare / api     ${(bare.cpuMicrosPerRequest / api.cpuMicrosPerRequest).toFixed(2)} (the servers' own cost, apart from the load generator's)`,
    );
  }
  console.log(`  targets                       ${figures.meetsTarget ? 'met' : 'NOT met'}`);
  const { before, after } = figures.loadAverage;
  console.log(
    `  load average (1 min) before ${before.toFixed(2)}, after ${after.toFixed(2)} on ${availableParallelism()} cores`,
  );
  for (const { target, figures: f } of figures.rounds) {
    console.log(
      `    round ${target.padEnd(13)} ${fmt(f.requestsPerSec).padStart(8)} req/s  p50 ${f.p50Ms} ms  p99 ${f.p99Ms} ms  failures ${f.failures}${cpu(f)}`,
    );
  }
  if (figures.sqlTimingsFile !== undefined) {
    console.log(`  SQL statements of the cached server, warm-up included (${figures.sqlTimingsFile}):`);
    for (const line of sqlTimingLines(readSqlTimings(figures.sqlTimingsFile))) console.log(`    ${line}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printApiFigures(
    await benchApi({ profileDir: process.env.BENCH_API_PROFILE, sqlTimingsFile: process.env.BENCH_API_SQL }),
  );
}

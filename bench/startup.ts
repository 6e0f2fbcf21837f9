/**
 * Start-up benchmark: how soon `mailvet serve` answers /healthz after its process starts, its idle
 * memory, and how long CLI commands take, from the build (dist/) and from the sources (tsx), beside
 * the floor of starting Node itself (`node -e ""`) in the same run. Medians of a few runs each; the
 * data directory is fresh (embedded SQLite). `npm run bench -- startup`.
 *
 * A/B against another checkout: `node --import tsx bench/startup.ts --ab <other checkout> [rounds]`
 * (10 rounds by default). Each round starts this checkout's build, then the other's (ABAB), each
 * through its own bin/mailvet: `serve` with the SMTP probe off and on (time to /healthz, idle RSS),
 * then `keys create`. It prints both medians and this / other for each figure. On a shared machine
 * the same tree's figures swing by a third between minutes; alternating makes a slow spell hit both.
 * The other checkout needs its own `npm ci && npm run build` (e.g. `git worktree add
 * /tmp/startup-base HEAD`). A build older than its sources is rebuilt (its own
 * scripts/build-if-stale.mjs) before it is measured, so no round runs the sources by mistake.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../tests/helpers/free-port.ts';
import { ensureBuilt } from './build.ts';
import { memory } from './lists.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 5;

/** The targets, from the build (docs/benchmarks.md, "Start-up"). */
export const TARGETS = {
  healthzMs: 1000,
  /** serve → /healthz at most this many times `node -e ""` on the same machine. */
  healthzTimesNode: 7,
  idleRssProbeOnMb: 110,
  helpMs: 500,
  keysCreateMs: 500,
} as const;

export interface StartupFigures {
  nodeFloorMs: number;
  build: Figures;
  sources: Figures;
}

interface Figures {
  healthzMs: number;
  idleRssMb: number;
  /** With the SMTP probe on (the default), whose start-up doctor runs once after listening. */
  idleRssProbeOnMb: number;
  helpMs: number;
  keysCreateMs: number;
}

/**
 * The caller's environment without what would move a start away from the README's `npm start`
 * (embedded SQLite, defaults): a shell that ran the PostgreSQL bench or the tests with
 * DATABASE_URL set made every `serve` here a scale-out start that refused to run without its key.
 */
function shippedEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => name !== 'DATABASE_URL' && name !== 'REDIS_URL' && !name.startsWith('MAILVET_'),
    ),
  );
  return { ...inherited, ...env };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function timed(root: string, args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: shippedEnv(env),
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

/** User + system CPU time of a process so far, ms (/proc/<pid>/stat, in 10 ms ticks). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Spawn → first 200 from /healthz, the CPU time the process had used by then (on a busy machine,
 * steadier than the wall time), and the idle RSS two seconds later.
 */
async function serveOnce(
  root: string,
  env: Record<string, string>,
): Promise<{ healthzMs: number; healthzCpuMs: number; idleRssMb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/mailvet', 'serve'], {
    cwd: root,
    env: shippedEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // What a serve that died said last, for the error.
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (child.exitCode !== null)
        throw new Error(`serve in ${root} exited ${child.exitCode}: ${stderr.trim() || 'nothing on stderr'}`);
      if (performance.now() - started > 30_000) throw new Error('no /healthz within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const healthzMs = performance.now() - started;
    const healthzCpuMs = await cpuMs(child.pid!);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { healthzMs, healthzCpuMs, idleRssMb: (await memory(child.pid!)).rssKb / 1024 };
  } finally {
    // Listened for from the spawn: a serve that died before this point has already sent 'exit'.
    child.kill('SIGTERM');
    await exited;
  }
}

async function figures(env: Record<string, string>): Promise<Figures> {
  const fromBuild = env.MAILVET_FROM_SOURCE !== '1';
  const before = async () => (fromBuild ? ensureBuilt(ROOT) : undefined);
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-startup-'));
  try {
    const withData = { ...env, MAILVET_DATA_DIR: dataDir, MAILVET_SMTP_PROBE: 'false' };
    // The first start makes the database and its secret: not counted.
    await serveOnce(ROOT, withData);
    const serves = [];
    for (let i = 0; i < RUNS; i++) serves.push(await before().then(() => serveOnce(ROOT, withData)));
    const probeOn = [];
    for (let i = 0; i < RUNS; i++) {
      probeOn.push(await before().then(() => serveOnce(ROOT, { ...withData, MAILVET_SMTP_PROBE: 'true' })));
    }
    await before();
    const help = Array.from({ length: RUNS }, () => timed(ROOT, ['bin/mailvet', '--help'], withData));
    const keys = Array.from({ length: RUNS }, (_, i) =>
      timed(ROOT, ['bin/mailvet', 'keys', 'create', '--name', `bench ${i}`, '--init'], withData),
    );
    return {
      healthzMs: median(serves.map((each) => each.healthzMs)),
      idleRssMb: median(serves.map((each) => each.idleRssMb)),
      idleRssProbeOnMb: median(probeOn.map((each) => each.idleRssMb)),
      helpMs: median(help),
      keysCreateMs: median(keys),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const nodeFloor = (runs: number) => median(Array.from({ length: runs }, () => timed(ROOT, ['-e', ''], {})));

export async function benchStartup(): Promise<StartupFigures> {
  await ensureBuilt(ROOT);
  const nodeFloorMs = nodeFloor(RUNS);
  return {
    nodeFloorMs,
    build: await figures({}),
    sources: await figures({ MAILVET_FROM_SOURCE: '1' }),
  };
}

const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
const mb = (n: number) => `${Math.round(n)} MB`;

export function printStartupFigures(f: StartupFigures): void {
  const healthzTarget = Math.min(TARGETS.healthzMs, TARGETS.healthzTimesNode * f.nodeFloorMs);
  console.log(`\nStart-up, medians of ${RUNS}; node -e "" alone takes ${ms(f.nodeFloorMs)} here`);
  console.log('                          from dist/      from sources (tsx)   target (from dist/)');
  const line = (
    name: string,
    pick: (x: Figures) => number,
    unit: (n: number) => string,
    target: string,
    limit?: number,
  ) => {
    const verdict = limit === undefined ? '' : pick(f.build) <= limit ? '  met' : '  MISSED';
    console.log(
      `  ${name.padEnd(24)}${unit(pick(f.build)).padEnd(16)}${unit(pick(f.sources)).padEnd(21)}${target}${verdict}`,
    );
  };
  line(
    'serve → /healthz',
    (x) => x.healthzMs,
    ms,
    `≤ 1 s and ≤ ${TARGETS.healthzTimesNode}× node (${ms(healthzTarget)})`,
    healthzTarget,
  );
  line('serve idle RSS', (x) => x.idleRssMb, mb, '—');
  line(
    '  probe on (doctor ran)',
    (x) => x.idleRssProbeOnMb,
    mb,
    `≤ ${TARGETS.idleRssProbeOnMb} MB`,
    TARGETS.idleRssProbeOnMb,
  );
  line('mailvet --help', (x) => x.helpMs, ms, `≤ ${TARGETS.helpMs} ms`, TARGETS.helpMs);
  line(
    'mailvet keys create',
    (x) => x.keysCreateMs,
    ms,
    `≤ ${TARGETS.keysCreateMs} ms`,
    TARGETS.keysCreateMs,
  );
}

/** One round's figures of one tree's build. */
interface RoundFigures {
  healthzMs: number;
  healthzCpuMs: number;
  idleRssMb: number;
  healthzProbeOnMs: number;
  idleRssProbeOnMb: number;
  keysCreateMs: number;
}

const AB_FIGURES: { key: keyof RoundFigures; name: string; unit: (n: number) => string }[] = [
  { key: 'healthzMs', name: 'serve → /healthz', unit: ms },
  { key: 'healthzCpuMs', name: '  CPU time until then', unit: ms },
  { key: 'idleRssMb', name: 'idle RSS, probe off', unit: mb },
  { key: 'healthzProbeOnMs', name: 'serve → /healthz, probe on', unit: ms },
  { key: 'idleRssProbeOnMb', name: 'idle RSS, probe on', unit: mb },
  { key: 'keysCreateMs', name: 'keys create', unit: ms },
];

/** This checkout's build against `other`'s, `rounds` times each, alternately. */
export async function benchStartupAb(other: string, rounds: number): Promise<void> {
  const trees = [
    { name: 'this', root: ROOT, runs: [] as RoundFigures[] },
    { name: 'other', root: resolve(other), runs: [] as RoundFigures[] },
  ];
  const dataDirs = await Promise.all(trees.map(() => mkdtemp(join(tmpdir(), 'mailvet-bench-startup-ab-'))));
  try {
    for (const [i, tree] of trees.entries()) {
      await ensureBuilt(tree.root);
      // The first start makes the database and its secret: not counted.
      await serveOnce(tree.root, { MAILVET_DATA_DIR: dataDirs[i]!, MAILVET_SMTP_PROBE: 'false' });
    }
    const nodeFloorMs = nodeFloor(RUNS);
    console.log(
      `  ${''.padEnd(14)}${['healthz', 'CPU', 'RSS', 'probe on', 'RSS', 'keys'].map((h) => h.padStart(9)).join('')}`,
    );
    for (let round = 0; round < rounds; round++) {
      for (const [i, tree] of trees.entries()) {
        await ensureBuilt(tree.root);
        const env = { MAILVET_DATA_DIR: dataDirs[i]!, MAILVET_SMTP_PROBE: 'false' };
        const probeOff = await serveOnce(tree.root, env);
        const probeOn = await serveOnce(tree.root, { ...env, MAILVET_SMTP_PROBE: 'true' });
        const keysCreateMs = timed(
          tree.root,
          ['bin/mailvet', 'keys', 'create', '--name', `bench ${round}`],
          env,
        );
        const figures = {
          healthzMs: probeOff.healthzMs,
          healthzCpuMs: probeOff.healthzCpuMs,
          idleRssMb: probeOff.idleRssMb,
          healthzProbeOnMs: probeOn.healthzMs,
          idleRssProbeOnMb: probeOn.idleRssMb,
          keysCreateMs,
        };
        tree.runs.push(figures);
        console.log(
          `  round ${round + 1} ${tree.name.padEnd(6)}${AB_FIGURES.map((f) => f.unit(figures[f.key]).padStart(9)).join('')}`,
        );
      }
    }
    console.log(`\nStart-up A/B, medians of ${rounds} rounds (ABAB); node -e "" takes ${ms(nodeFloorMs)}`);
    console.log(`  this:  ${ROOT}\n  other: ${resolve(other)}`);
    console.log(
      `  ${''.padEnd(30)}${'this'.padStart(10)}${'other'.padStart(10)}${'this / other'.padStart(15)}`,
    );
    for (const { key, name, unit } of AB_FIGURES) {
      const [mine, theirs] = trees.map((tree) => median(tree.runs.map((run) => run[key]))) as [
        number,
        number,
      ];
      console.log(
        `  ${name.padEnd(30)}${unit(mine).padStart(10)}${unit(theirs).padStart(10)}${(mine / theirs).toFixed(2).padStart(15)}`,
      );
    }
  } finally {
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--ab');
  const other = at === -1 ? undefined : process.argv[at + 1];
  if (other === undefined) {
    console.error('usage: node --import tsx bench/startup.ts --ab <other checkout> [rounds, default 10]');
    process.exit(2);
  }
  await benchStartupAb(other, Number(process.argv[at + 2] ?? 10));
}

/**
 * Start-up benchmark: how soon `mailvet serve` answers /healthz after its process starts, its idle
 * memory, and how long CLI commands take, from the build (dist/) and from the sources (tsx), beside
 * the floor of starting Node itself (`node -e ""`) in the same run. Medians of a few runs each; the
 * data directory is fresh (embedded SQLite).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../tests/helpers/free-port.ts';
import { memory } from './lists.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 5;

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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function timed(args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return performance.now() - started;
}

/** Spawn → first 200 from /healthz, and the idle RSS two seconds later. */
async function serveOnce(env: Record<string, string>): Promise<{ healthzMs: number; idleRssMb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/mailvet', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (performance.now() - started > 30_000) throw new Error('no /healthz within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const healthzMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { healthzMs, idleRssMb: (await memory(child.pid!)).rssKb / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function figures(env: Record<string, string>): Promise<Figures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-startup-'));
  try {
    const withData = { ...env, MAILVET_DATA_DIR: dataDir, MAILVET_SMTP_PROBE: 'false' };
    // The first start makes the database and its secret: not counted.
    await serveOnce(withData);
    const serves = [];
    for (let i = 0; i < RUNS; i++) serves.push(await serveOnce(withData));
    const probeOn = [];
    for (let i = 0; i < RUNS; i++) probeOn.push(await serveOnce({ ...withData, MAILVET_SMTP_PROBE: 'true' }));
    const help = Array.from({ length: RUNS }, () => timed(['bin/mailvet', '--help'], withData));
    const keys = Array.from({ length: RUNS }, (_, i) =>
      timed(['bin/mailvet', 'keys', 'create', '--name', `bench ${i}`, '--init'], withData),
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

export async function benchStartup(): Promise<StartupFigures> {
  const built = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build failed');
  const nodeFloorMs = median(Array.from({ length: RUNS }, () => timed(['-e', ''], {})));
  return {
    nodeFloorMs,
    build: await figures({}),
    sources: await figures({ MAILVET_FROM_SOURCE: '1' }),
  };
}

export function printStartupFigures(f: StartupFigures): void {
  const ms = (n: number) => `${Math.round(n)} ms`;
  console.log(`\nStart-up, medians of ${RUNS}; node -e "" alone takes ${ms(f.nodeFloorMs)} here`);
  console.log('                          from dist/      from sources (tsx)   target (from dist/)');
  const line = (name: string, pick: (x: Figures) => number, unit: (n: number) => string, target: string) =>
    console.log(
      `  ${name.padEnd(24)}${unit(pick(f.build)).padEnd(16)}${unit(pick(f.sources)).padEnd(21)}${target}`,
    );
  line('serve → /healthz', (x) => x.healthzMs, ms, '≤ 1,500 ms');
  line(
    'serve idle RSS',
    (x) => x.idleRssMb,
    (n) => `${Math.round(n)} MB`,
    '≤ 120 MB',
  );
  line(
    '  probe on (doctor ran)',
    (x) => x.idleRssProbeOnMb,
    (n) => `${Math.round(n)} MB`,
    '—',
  );
  line('mailvet --help', (x) => x.helpMs, ms, '≤ 500 ms');
  line('mailvet keys create', (x) => x.keysCreateMs, ms, '≤ 1,000 ms');
}

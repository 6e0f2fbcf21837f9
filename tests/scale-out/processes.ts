/**
 * Real `mailvet` processes for the scale-out suites: `serve` children on PORT=0 (their URL read from
 * the "listening on" log line), one-shot commands (`keys create`), and a PostgreSQL schema of the
 * run's own, chosen by search_path in the URL and dropped at the end (as the store suite does).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running `mailvet` process (`worker`, or `serve` below). */
export interface WorkerProcess {
  /** Every stdout line so far (JSON log lines). */
  lines: string[];
  /** stderr so far. */
  stderr(): string;
  /** True while the process runs. */
  alive(): boolean;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>;
  /** SIGKILL: the process dies where it stands, as in a crash. */
  kill(): Promise<void>;
}

/** A running `mailvet serve`. */
export interface ServeProcess extends WorkerProcess {
  url: string;
}

/** The environment of the test process without the variables a child must get only from `env`. */
export function baseEnvironment(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, MAILVET_DATA_DIR: _m, PORT: _p, ...inherited } = process.env;
  return inherited;
}

/** Starts `node bin/mailvet serve` with `env` and resolves once it logs that it listens. */
export async function spawnServe(env: Record<string, string>, flags: string[] = []): Promise<ServeProcess> {
  const started = await spawnMailvet(
    ['serve', ...flags],
    { PORT: '0', HOST: '127.0.0.1', ...env },
    /"msg":"listening on (http:\/\/[^"]+)"/,
  );
  return { ...started.process, url: started.match[1]! };
}

/** Starts `node bin/mailvet worker` with `env` and resolves once it logs that it started. */
export async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  return (await spawnMailvet(['worker'], env, /"msg":"worker started"/)).process;
}

/** Starts `node bin/mailvet <command>` and resolves once a stdout line matches `ready`. */
async function spawnMailvet(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ process: WorkerProcess; match: RegExpExecArray }> {
  const command = args.join(' ');
  const child = spawn(process.execPath, ['bin/mailvet', ...args], {
    env: { ...baseEnvironment(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command}: no line matching ${ready} in 20 s; stderr: ${stderr}`)),
      20_000,
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const found = ready.exec(line);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code} before it was ready; stderr: ${stderr}`));
    });
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    match,
    process: {
      lines,
      stderr: () => stderr,
      alive,
      async kill() {
        if (!alive()) return;
        child.kill('SIGKILL');
        await exited;
      },
      async stop() {
        if (!alive()) return;
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(killer);
      },
    },
  };
}

/** Runs `node bin/mailvet ...args` (of the checkout at `root`, this one by default) to completion with `env`; returns its stdout. */
export async function mailvet(args: string[], env: Record<string, string>, root?: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['bin/mailvet', ...args], {
    env: { ...baseEnvironment(), ...env },
    timeout: 30_000,
    ...(root !== undefined && { cwd: root }),
  });
  return stdout;
}

/** A key made by `mailvet keys create --json`. */
export interface CreatedKey {
  id: string;
  accountId: string;
  key: string;
}

/** `mailvet keys create --name NAME ...flags --json`, parsed. */
export async function createKey(
  name: string,
  flags: string[],
  env: Record<string, string>,
  root?: string,
): Promise<CreatedKey> {
  const created = JSON.parse(
    await mailvet(['keys', 'create', '--name', name, ...flags, '--json', '--init'], env, root),
  ) as {
    id: unknown;
    account_id: unknown;
    key: unknown;
  };
  if (
    typeof created.id !== 'string' ||
    typeof created.key !== 'string' ||
    typeof created.account_id !== 'string'
  )
    throw new Error('keys create --json printed no id, account_id or key');
  return { id: created.id, accountId: created.account_id, key: created.key };
}

export { schemaFactory, withSearchPath } from '../helpers/postgres-schemas.ts';

/** A fresh 32-byte secret as 64 hex digits (MAILVET_SECRET_KEY). */
export function secretKey(): string {
  return randomBytes(32).toString('hex');
}

/** POST /api/v1/verify with `key`. */
export function verify(url: string, key: string, email: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/api/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
    signal,
  });
}

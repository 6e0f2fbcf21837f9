/**
 * The demo's Mailvet: `node bin/mailvet serve` as a child process, exactly what `npm start` runs,
 * with the demo's environment. Its JSON log goes to a file in the data directory, so the demo's own
 * lines stay readable. It runs in a process group of its own: a Ctrl-C in the terminal reaches the
 * demo only, which stops the server once (a second signal would make it exit without finishing).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../tests/helpers/free-port.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** How long the server may take to listen; it takes seconds, more on a busy machine. */
const START_GUARD_MS = 120_000;
/** After SIGTERM it finishes requests in flight; past this it is killed. */
const STOP_GUARD_MS = 15_000;
const FREE_PORT_ATTEMPTS = 3;

/**
 * Whether a variable of the caller's environment reaches the server. The demo's server is set up
 * by the demo alone: embedded (no DATABASE_URL or REDIS_URL), on its own address and data, and with
 * no MAILVET_* setting of the caller's (an export line pasted from an earlier demo, probes turned
 * off...) changing what it shows.
 */
const inherits = (name: string) =>
  !['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST'].includes(name) && !name.startsWith('MAILVET_');

/** A running demo server. */
export interface DemoServer {
  /** `http://127.0.0.1:PORT`: the dashboard, the API and MAILVET_PUBLIC_URL. */
  url: string;
  /** Its log file. */
  logFile: string;
  /** SIGTERM, then SIGKILL past the guard; resolves once it exited. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL at once, for a demo ending without time to wait. */
  kill(): void;
}

/** Starts the server on 127.0.0.1:`port` (0: a free one) with `env` over the caller's environment. */
export async function startDemoServer(options: {
  port: number;
  dataDir: string;
  env: Record<string, string>;
  /** Called with each process as soon as it is spawned, so a demo stopped meanwhile can stop it too. */
  onSpawn?: (server: DemoServer) => void;
}): Promise<DemoServer> {
  const logFile = join(options.dataDir, 'server.log');
  for (let attempt = 1; ; attempt++) {
    // The public URL must be known before the server starts (it checks the Origin of the
    // dashboard's requests against it), so a free port is chosen here rather than by the server.
    const port = options.port === 0 ? await freePort() : options.port;
    try {
      return await spawnServe(port, logFile, options);
    } catch (error) {
      if (!(error instanceof PortTaken)) throw error;
      if (options.port !== 0) {
        throw new Error(portTakenMessage(port));
      }
      // Taken between the probe and the server's bind: another free port.
      if (attempt >= FREE_PORT_ATTEMPTS) throw new Error(`no free port after ${attempt} attempts`);
    }
  }
}

class PortTaken extends Error {}

/** Throws at once when 127.0.0.1:`port` is taken: better than after the seconds a server takes to start. */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(portTakenMessage(port));
    if (code === 'EACCES') throw new Error(`port ${port} needs privileges: pass --port 1024 or above, or 0`);
    throw error;
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

function portTakenMessage(port: number): string {
  return `port ${port} is in use: stop what listens there, or pass --port 0 (a free port)`;
}

async function spawnServe(
  port: number,
  logFile: string,
  options: { dataDir: string; env: Record<string, string>; onSpawn?: (server: DemoServer) => void },
): Promise<DemoServer> {
  const url = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => inherits(name)));
  const child = spawn(process.execPath, [join(ROOT, 'bin/mailvet'), 'serve'], {
    cwd: ROOT,
    env: {
      ...inherited,
      ...options.env,
      // Loopback only: the demo's account has a password printed on the screen.
      HOST: '127.0.0.1',
      PORT: String(port),
      MAILVET_PUBLIC_URL: url,
      MAILVET_DATA_DIR: options.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    log.write(chunk);
  });
  // 'close' comes once its output has all been read, so the log ends with its last line.
  const exited = new Promise<void>((resolve) => child.once('close', () => log.end(() => resolve())));
  const ready = new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => {
      reject(new Error(`mailvet serve did not listen within ${START_GUARD_MS / 1000} s; see ${logFile}`));
    }, START_GUARD_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.write(`${line}\n`);
      if (line.includes('"msg":"listening on ')) {
        clearTimeout(guard);
        resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      const message = stderr.trim() || `exited with ${code ?? signal}; see ${logFile}`;
      reject(/already in use/.test(stderr) ? new PortTaken(message) : new Error(`mailvet serve: ${message}`));
    });
  });
  const server = controls(child, url, logFile, exited);
  options.onSpawn?.(server);
  try {
    await ready;
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

function controls(child: ChildProcess, url: string, logFile: string, exited: Promise<void>): DemoServer {
  let stopping: Promise<void> | undefined;
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    logFile,
    stop() {
      stopping ??= (async () => {
        if (!running()) return exited;
        const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GUARD_MS);
        child.kill('SIGTERM');
        await exited;
        clearTimeout(killer);
      })();
      return stopping;
    },
    kill() {
      if (running()) child.kill('SIGKILL');
    },
  };
}

/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit
 * crosses 1,000 WAL pages: the commit of a request or of a list's results then copied the WAL into
 * the database and waited for the disk (fsync) on the event loop, about 40 % of a big list job's
 * time. The store's connection turns that off, and a worker thread with a connection of its own
 * checkpoints instead, every 2 s: PASSIVE, so it never waits for a reader or a writer and
 * nobody waits for it. Pages rewritten many times meanwhile are copied once.
 *
 * What a crash can lose is unchanged: a commit is in the WAL when it returns, and a checkpoint
 * only moves committed pages; a process killed mid-checkpoint leaves the WAL to replay. With
 * `synchronous = NORMAL` (the store's setting) commits are not synced one by one: a power cut may
 * lose the commits since the last sync, which is at most the last checkpoint's interval ago, and
 * never leaves the file inconsistent (docs/architecture.md, "what a crash can lose").
 *
 * The worker is inline code (no file of its own), so it runs the same from the sources, the build
 * and a bundle; it loads better-sqlite3 from the path this module resolves.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints, ms. */
export const CHECKPOINT_INTERVAL_MS = 2000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
let stopped = false;
const checkpoint = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ kind: 'checkpointed', frames: row ? row.log : 0, copied: row ? row.checkpointed : 0 });
  } catch (error) {
    parentPort.postMessage({ kind: 'failed', message: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'now') checkpoint();
  if (message === 'stop' && !stopped) {
    stopped = true;
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

export interface CheckpointerOptions {
  intervalMs?: number;
  busyTimeoutMs?: number;
  /** Told of each checkpoint (frames in the WAL, frames copied) or failure: tests and metrics. */
  onCheckpoint?: (outcome: { frames: number; copied: number } | { error: string }) => void;
}

/** A running checkpointer; `stop` ends its thread (the store's own close checkpoints last). */
export interface Checkpointer {
  /** A checkpoint now (tests): settles once the worker has reported it. */
  nudge(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts checkpointing the WAL of the SQLite database at `file`. */
export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      busyTimeoutMs: options.busyTimeoutMs ?? 5000,
    },
  });
  // A checkpointer never keeps the process alive: a server that closed without stopping it exits.
  worker.unref();
  let waiting: Array<() => void> = [];
  worker.on('message', (message: { kind: string; frames?: number; copied?: number; message?: string }) => {
    if (message.kind === 'failed') options.onCheckpoint?.({ error: message.message ?? 'unknown' });
    else options.onCheckpoint?.({ frames: message.frames ?? 0, copied: message.copied ?? 0 });
    const told = waiting;
    waiting = [];
    if (told.length > 0) worker.unref();
    for (const resolve of told) resolve();
  });
  // A failed checkpoint is retried on the next tick; a dead worker only means the WAL grows until
  // the store closes (and checkpoints then): neither may take the server down.
  worker.on('error', (error) => options.onCheckpoint?.({ error: String(error) }));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    nudge: () =>
      new Promise<void>((resolve) => {
        // Whoever waits for the answer keeps the process alive until it comes.
        worker.ref();
        waiting.push(resolve);
        worker.postMessage('now');
      }),
    stop: () => {
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}

/**
 * The copy behind `mailvet backup`: SQLite's online backup API (better-sqlite3's `db.backup()`)
 * from a read-only connection, so it runs beside a live `mailvet serve` (WAL: readers never block
 * the writer) and never migrates or writes the live database. The copy goes to a temporary file
 * beside the target and is published only once it is whole and checked, so a failed or killed
 * backup never leaves a half file under the target's name.
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync, rmSync } from 'node:fs';
import { link, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';

/** How long the read-only connection waits for a lock (WAL recovery, a checkpoint) before failing. */
const BUSY_TIMEOUT_MS = 2_000;

/**
 * The whole copy in one step, one read transaction: the backup API restarts from the first page
 * whenever another connection writes between two steps, and a busy server writes every moment,
 * so a copy in small steps might never end. One step reads one consistent snapshot instead (in
 * WAL mode the server keeps writing meanwhile; only checkpoints wait for the snapshot to end).
 */
const ALL_PAGES = 0x7fffffff;

/** Rows counted in the copy, by what they are; a table the schema lacks is left out. */
const COUNTED = {
  accounts: 'select count(*) from accounts',
  api_keys: "select count(*) from api_keys where kind = 'api'",
  users: 'select count(*) from users',
  lists: 'select count(*) from lists',
  list_rows: 'select count(*) from list_rows',
  integrations: 'select count(*) from integrations',
} as const;

/** What a finished backup holds. */
export interface BackupSummary {
  path: string;
  bytes: number;
  /** The last migration the copy's schema has: restore it with this version of Mailvet or a newer one. */
  migration: string | null;
  counts: Partial<Record<keyof typeof COUNTED, number>>;
}

/** Why a backup could not be made, in words for the operator. */
export type BackupFailure =
  | { kind: 'not_a_database'; message: string }
  | { kind: 'target_exists'; message: string };

/**
 * Copies the SQLite database `source` to `target`. Without `replace`, a `target` that appears
 * meanwhile is not replaced (the new file is linked, never renamed over it).
 */
export async function backupSqlite(
  source: string,
  target: string,
  replace: boolean,
): Promise<BackupSummary | BackupFailure> {
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const leftovers = [temporary, `${temporary}-journal`, `${temporary}-wal`, `${temporary}-shm`];
  // Ctrl-C or a stop mid-copy: remove the temporary file, then end as the signal would have.
  const interrupted = (signal: NodeJS.Signals) => {
    for (const leftover of leftovers) rmSync(leftover, { force: true });
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    // 0600 before SQLite writes a page: the copy holds what the live database holds.
    await (await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600)).close();
    const copied = await copyDatabase(source, temporary);
    if ('kind' in copied) return copied;
    const written = await open(temporary, 'r+');
    await written.sync().finally(() => written.close());
    if (!(await publish(temporary, target, replace))) {
      return { kind: 'target_exists', message: `${target} appeared while the backup ran: nothing replaced` };
    }
    await syncDirectory(dirname(target));
    return { path: target, bytes: (await stat(target)).size, ...copied };
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    for (const leftover of leftovers) await unlink(leftover).catch(() => {});
  }
}

/**
 * Gives the finished copy its name; false when `target` exists and may not be replaced. `link`
 * never replaces a file, so a target made meanwhile is kept; where the file system has no hard
 * links, a last look and a rename do.
 */
async function publish(temporary: string, target: string, replace: boolean): Promise<boolean> {
  if (replace) {
    await rename(temporary, target);
    return true;
  }
  try {
    await link(temporary, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
  }
  if (existsSync(target)) return false;
  await rename(temporary, target);
  return true;
}

/** The online copy, then a check of the copy and its counts. */
async function copyDatabase(
  source: string,
  temporary: string,
): Promise<Omit<BackupSummary, 'path' | 'bytes'> | BackupFailure> {
  let live: Database.Database;
  try {
    live = new Database(source, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    return notADatabase(source, error);
  }
  try {
    const migrated = live
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (migrated === undefined) {
      return {
        kind: 'not_a_database',
        message: `${source} holds no Mailvet tables (no migration was ever applied to it): nothing to back up`,
      };
    }
    await live.backup(temporary, { progress: () => ALL_PAGES });
  } catch (error) {
    return notADatabase(source, error);
  } finally {
    live.close();
  }
  return inspectCopy(temporary);
}

/**
 * Checks the copy page by page and counts its rows. The copy keeps the live file's WAL mode in its
 * header; switched back to a rollback journal it is one self-contained file (opening it leaves no
 * `-wal`/`-shm` beside it), and the server turns WAL on again when it opens the restored file.
 */
function inspectCopy(file: string): Omit<BackupSummary, 'path' | 'bytes'> {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the backup copy failed its integrity check: ${String(check)}`);
    const tables = new Set(
      copy.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[],
    );
    const counts: BackupSummary['counts'] = {};
    for (const [name, query] of Object.entries(COUNTED) as [keyof typeof COUNTED, string][]) {
      const table = /from (\w+)/.exec(query)?.[1];
      if (table !== undefined && tables.has(table)) counts[name] = Number(copy.prepare(query).pluck().get());
    }
    const migration = copy
      .prepare('select name from kysely_migration order by name desc limit 1')
      .pluck()
      .get() as string | undefined;
    return { migration: migration ?? null, counts };
  } finally {
    copy.close();
  }
}

function notADatabase(source: string, error: unknown): BackupFailure {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return {
      kind: 'not_a_database',
      message: `${source} is not a readable SQLite database (${String(code)})`,
    };
  }
  throw error;
}

/** Makes the new directory entry durable; best effort (not every platform opens directories). */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r').catch(() => null);
  if (handle === null) return;
  await handle
    .sync()
    .catch(() => {})
    .finally(() => handle.close());
}

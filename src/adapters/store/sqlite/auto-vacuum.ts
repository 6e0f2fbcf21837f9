/**
 * SQLite gives the pages of deleted rows back for reuse only in incremental auto-vacuum, where
 * `PRAGMA incremental_vacuum` moves free pages to the file's end and truncates it (retention calls
 * it after each list it empties). A new file is made in that mode before its first table; an
 * existing one needs a VACUUM, which rewrites the whole file under an exclusive lock: done at start
 * only while the file is small, else left to the operator (`docs/data-protection.md`), since a
 * large file would hold every request for as long as the rewrite takes.
 */
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';

/** `PRAGMA auto_vacuum` values. */
const INCREMENTAL = 2;

/** Files up to this size are switched at start (a VACUUM of 64 MB takes well under a second). */
export const AUTO_VACUUM_SWITCH_MAX_BYTES = 64 * 1024 * 1024;

/** Sets incremental auto-vacuum on a file with no table yet (where the setting takes effect at once). */
export function incrementalOnNewFile(connection: Database.Database): void {
  const tables = connection.prepare('select count(*) from sqlite_master').pluck().get() as number;
  if (tables === 0) connection.pragma('auto_vacuum = INCREMENTAL');
}

/**
 * Switches an existing file to incremental auto-vacuum when it is small enough; returns the mode it
 * is in afterwards (`incremental`, or `none`/`full` when left as it was). A file another process
 * holds busy is left for a later start.
 */
export function switchToIncrementalVacuum(
  connection: Database.Database,
  file: string,
  maxBytes = AUTO_VACUUM_SWITCH_MAX_BYTES,
): 'incremental' | 'none' | 'full' {
  const mode = connection.pragma('auto_vacuum', { simple: true }) as number;
  if (mode === INCREMENTAL) return 'incremental';
  if (statSync(file).size > maxBytes) return mode === 1 ? 'full' : 'none';
  try {
    connection.pragma('auto_vacuum = INCREMENTAL');
    connection.exec('vacuum');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
  }
  const after = connection.pragma('auto_vacuum', { simple: true }) as number;
  return after === INCREMENTAL ? 'incremental' : after === 1 ? 'full' : 'none';
}

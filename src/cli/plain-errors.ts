/**
 * Failures of the machine a command runs on, as the one plain line `main.ts` prints: a data
 * directory this user cannot write, a database it cannot open read-write, an output folder that
 * does not exist, a directory where a file was meant. They are the operator's to fix, so they get
 * words and a path, never a stack trace or a JSON log line. Anything else stays an error as it was.
 */
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { UsageError } from './usage-error.ts';

/** System calls that only read: a failure there is a file that cannot be read. */
const READING = new Set(['access', 'stat', 'lstat', 'read', 'scandir', 'opendir', 'readlink']);

/**
 * The plain line for a file-system failure (an error with a `path`), or undefined for anything
 * else. `verb` says what the command was doing with the path; by default the system call says.
 */
export function fileProblem(error: unknown, verb?: 'read' | 'write'): UsageError | undefined {
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof path !== 'string') return undefined;
  const doing = verb ?? (READING.has(syscall ?? '') ? 'read' : 'write');
  const why = reason(code, path, doing);
  return why === undefined ? undefined : new UsageError(`cannot ${doing} ${path}: ${why}`);
}

function reason(code: string, path: string, doing: 'read' | 'write'): string | undefined {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOENT':
      return doing === 'write' ? `no such directory ${dirname(path)}` : 'no such file';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left on the device';
    default:
      return undefined;
  }
}

/** The embedded database's file. */
export function sqliteFile(config: Pick<Config, 'MAILVET_DATA_DIR'>): string {
  return resolve(config.MAILVET_DATA_DIR, 'mailvet.db');
}

/**
 * The plain line for a failure to open or write the embedded database (better-sqlite3's
 * `SQLITE_*` codes), or for a file-system failure; undefined for anything else.
 */
export function storeProblem(
  error: unknown,
  config: Pick<Config, 'MAILVET_DATA_DIR' | 'DATABASE_URL'>,
): UsageError | undefined {
  const code = (error as { code?: unknown }).code;
  if (config.DATABASE_URL === undefined && typeof code === 'string' && code.startsWith('SQLITE_')) {
    const file = sqliteFile(config);
    if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM') {
      // SQLite opens a file it may only read without a word, and fails at the first write: the
      // WAL switch, which every command makes, even one that only lists.
      return new UsageError(
        `cannot write ${file}: the database is read-only for this user; mailvet needs to write the file and its directory ${dirname(file)}, even to read`,
      );
    }
    if (code === 'SQLITE_CANTOPEN') {
      return new UsageError(
        `cannot open ${file}: this user may not read and write it, or its directory ${dirname(file)}`,
      );
    }
    if (code === 'SQLITE_FULL') return new UsageError(`cannot write ${file}: no space left on the device`);
    return undefined;
  }
  return fileProblem(error);
}

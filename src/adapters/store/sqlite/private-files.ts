/**
 * The embedded database holds every customer's keys (hashed), lists and results: other users of
 * the machine must not read it. The data directory is created 0700 and the database file 0600;
 * SQLite creates the `-wal` and `-shm` files with the database file's mode. An operator's existing
 * directory is left as it is, but start-up says when it or a file in it is open to others.
 */
import { closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Files of the data directory that hold secrets or customer data. */
const PRIVATE_FILES = ['mailvet.db', 'mailvet.db-wal', 'mailvet.db-shm', 'secret.key'];

/** Creates the data directory (0700) when missing. */
export function preparePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Creates `file` empty with mode 0600 when missing, before SQLite opens it with the umask's mode. */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** One sentence per path in the data directory that group or others may read or enter. */
export function exposedDataFiles(dir: string): string[] {
  const found: string[] = [];
  for (const path of [dir, ...PRIVATE_FILES.map((name) => join(dir, name))]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) {
      const fix = path === dir ? '700' : '600';
      found.push(
        `${path} is open to other users of this machine (mode ${mode.toString(8)}): chmod ${fix} ${path}`,
      );
    }
  }
  return found;
}

/**
 * `mailvet backup --out FILE`: an online backup of the embedded database, safe while
 * `mailvet serve` runs on it. PostgreSQL (scale-out) is backed up with its own tools, pg_dump.
 *
 * The secret key is deliberately not put in the backup file: it never changes after the first
 * start, so one copy kept apart is enough, and a stolen database copy then does not also hand over
 * the key that decrypts the Mailchimp credentials stored in it. The command says where the key is.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { type BackupSummary, backupSqlite } from './sqlite-backup.ts';
import { UsageError } from './usage-error.ts';

/** The database file in MAILVET_DATA_DIR (as src/adapters/store/open-store.ts names it). */
const DATABASE_FILE = 'mailvet.db';
/** The generated key file in MAILVET_DATA_DIR (SECRET_KEY_FILE of src/adapters/secret-key.ts). */
const SECRET_KEY_FILE = 'secret.key';
/** Files of the data directory a backup must never be written over. */
const LIVE_FILES = [
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  `${DATABASE_FILE}-journal`,
  SECRET_KEY_FILE,
];

/** Where the server secret lives, which the backup does not hold. */
interface SecretKeyWhereabouts {
  source: 'file' | 'environment' | 'none';
  path: string | null;
}

/** `mailvet backup --out FILE [--force] [--json]`. */
export async function runBackup(options: { out: string; force?: boolean; json?: boolean }): Promise<void> {
  const config = loadConfig();
  if (config.DATABASE_URL !== undefined) {
    throw new UsageError(
      'backup copies the embedded SQLite database, and DATABASE_URL is set: the data is in ' +
        'PostgreSQL, so back it up with pg_dump (pg_dump --format=custom --file=mailvet.dump "$DATABASE_URL"; ' +
        'see docs/deployment.md, "Backups")',
    );
  }
  const dataDir = resolve(config.MAILVET_DATA_DIR);
  const database = join(dataDir, DATABASE_FILE);
  if (!existsSync(database)) {
    throw new UsageError(
      `no database at ${database}: run this where the server runs, or set MAILVET_DATA_DIR to its data`,
    );
  }
  const target = checkedTarget(resolve(options.out), dataDir, options.force === true);
  const outcome = await backupSqlite(database, target, options.force === true);
  if ('kind' in outcome) throw new UsageError(outcome.message);
  const key = secretKeyWhereabouts(config.MAILVET_SECRET_KEY !== undefined, dataDir);
  if (options.json) {
    const { path, bytes, migration, counts } = outcome;
    process.stdout.write(
      `${JSON.stringify({ path, bytes, database, migration, counts, secret_key: key })}\n`,
    );
    return;
  }
  process.stdout.write(report(database, outcome, key));
}

/** The target file, refused when it would replace something it must not. */
function checkedTarget(target: string, dataDir: string, force: boolean): string {
  const folder = dirname(target);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new UsageError(`cannot write ${target}: the directory ${folder} does not exist`);
  }
  if (realpathSync(folder) === realpathSync(dataDir) && LIVE_FILES.includes(basename(target))) {
    throw new UsageError(`${target} is a file of the live data directory: write the backup somewhere else`);
  }
  if (existsSync(target)) {
    if (statSync(target).isDirectory()) throw new UsageError(`${target} is a directory: name a file`);
    if (!force) throw new UsageError(`${target} exists: give --force to replace it`);
  }
  return target;
}

function secretKeyWhereabouts(fromEnvironment: boolean, dataDir: string): SecretKeyWhereabouts {
  if (fromEnvironment) return { source: 'environment', path: null };
  const file = join(dataDir, SECRET_KEY_FILE);
  return existsSync(file) ? { source: 'file', path: file } : { source: 'none', path: null };
}

function report(database: string, backup: BackupSummary, key: SecretKeyWhereabouts): string {
  const { counts } = backup;
  const counted = [
    count(counts.accounts, 'account'),
    count(counts.api_keys, 'API key'),
    count(counts.users, 'user'),
    counts.lists === undefined
      ? undefined
      : `${count(counts.lists, 'list')} (${count(counts.list_rows ?? 0, 'row')})`,
    count(counts.integrations, 'integration'),
  ].filter((part) => part !== undefined);
  const why =
    'without it, stored Mailchimp credentials cannot be decrypted, dashboard sessions end and ' +
    "every list's webhook secret changes";
  const keyLine =
    key.source === 'file'
      ? `not in this file: the secret key ${key.path}. Keep a copy of it with your backups (it never changes); ${why}.`
      : key.source === 'environment'
        ? `not in this file: the secret key, MAILVET_SECRET_KEY in the environment. Keep its value with your backups; ${why}.`
        : `no secret key yet: the server makes ${join(dirname(database), SECRET_KEY_FILE)} on its first start; back it up then.`;
  return (
    `backed up the SQLite database ${database} to ${backup.path} (${backup.bytes.toLocaleString('en-US')} bytes)\n` +
    `  ${counted.join(', ')}; schema at migration ${backup.migration ?? '(none)'}\n` +
    `  ${keyLine}\n` +
    '  To restore, see docs/deployment.md, "Backups".\n'
  );
}

function count(value: number | undefined, noun: string): string | undefined {
  if (value === undefined) return undefined;
  return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}

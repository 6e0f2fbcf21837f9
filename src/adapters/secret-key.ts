/**
 * The server secret (MAILVET_SECRET_KEY): 32 bytes that encrypt stored third-party
 * credentials and sign sessions and webhooks. Each use takes its own subkey from `deriveKey`, so a
 * leak or a misuse in one (a session cookie oracle, say) says nothing about another.
 *
 * Embedded mode generates the key into the data dir on first start. Two processes may start at
 * once on a fresh dir (`mailvet serve` and `mailvet keys create`), and both must end with the same
 * key, or one of them signs what the other cannot check: each writes a whole key to its own
 * temporary file and `link`s it to the final name. `link` never replaces an existing file, so the
 * first link wins and the loser reads the winner's key; and the final name only ever appears with
 * a complete key in it (no reader sees a half-written file, as it could with `open(wx)` + write).
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Config, ConfigError } from '../config.ts';

/** The key file's name inside MAILVET_DATA_DIR. */
export const SECRET_KEY_FILE = 'secret.key';

/**
 * Subkey purposes, one per use, never shared. Webhook secrets are per list: purpose
 * `webhook:<list id>` (computed by `webhookSecretFor` in src/webhooks/signature.ts).
 */
export const KEY_PURPOSES = {
  /** Signs dashboard session cookies. */
  sessions: 'sessions',
  /** Encrypts stored third-party credentials (Mailchimp API keys and tokens). */
  credentials: 'credentials',
  /** Signs the device cookie of browsers that signed in before (spared the per-address sign-in lock). */
  devices: 'devices',
  /** Keys the hash that names an erased address in the audit log. */
  erasures: 'erasures',
} as const;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/**
 * The server secret: MAILVET_SECRET_KEY when set; else, in embedded mode, the key in
 * `$MAILVET_DATA_DIR/secret.key`, generated (mode 0600) on first start. Throws ConfigError in
 * scale-out (DATABASE_URL set) without MAILVET_SECRET_KEY — every process must share one key, and
 * a key made up by one of them would not be — and for a malformed variable or key file.
 */
export async function loadSecretKey(
  config: Pick<Config, 'MAILVET_SECRET_KEY' | 'DATABASE_URL' | 'MAILVET_DATA_DIR'>,
): Promise<Buffer> {
  const fromEnv = config.MAILVET_SECRET_KEY;
  if (fromEnv !== undefined) {
    // Config parsing checks this already; a hand-made config object might not have been parsed.
    if (!HEX_KEY.test(fromEnv))
      throw new ConfigError(['MAILVET_SECRET_KEY: must be 64 hex digits (32 bytes)']);
    return Buffer.from(fromEnv, 'hex');
  }
  if (config.DATABASE_URL !== undefined) {
    throw new ConfigError([
      'MAILVET_SECRET_KEY: required when DATABASE_URL is set (scale-out), and the same on every ' +
        'process; make one with `openssl rand -hex 32`',
    ]);
  }
  const dir = config.MAILVET_DATA_DIR;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, SECRET_KEY_FILE);
  return (await readKeyFile(path)) ?? (await createKeyFile(path));
}

/**
 * A 32-byte subkey of `secret` for one purpose (HKDF-SHA256, RFC 5869, the purpose as its info).
 * Different purposes give independent keys; the same purpose always gives the same key.
 */
export function deriveKey(secret: Uint8Array, purpose: string): Buffer {
  if (purpose.length === 0) throw new TypeError('deriveKey: purpose must not be empty');
  return Buffer.from(hkdfSync('sha256', secret, 'mailvet', purpose, 32));
}

/** The key in the file; null when there is no file yet. */
async function readKeyFile(path: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) {
    throw new ConfigError([
      `MAILVET_SECRET_KEY: ${path} does not hold 64 hex digits; restore it from a backup ` +
        '(deleting it makes a new key: stored credentials and sessions would be lost)',
    ]);
  }
  return Buffer.from(hex, 'hex');
}

/** Writes a new key unless another process got there first; returns the key that is in the file. */
async function createKeyFile(path: string): Promise<Buffer> {
  const key = randomBytes(32);
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  // 'wx' and 0600: the key is never readable by others, not even for a moment.
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(`${key.toString('hex')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const winner = await readKeyFile(path);
      if (winner === null) throw error;
      return winner;
    }
    await syncDirectory(path);
    return key;
  } finally {
    await unlink(temporary).catch(() => {});
  }
}

/** Makes the new directory entry durable; best effort (not every platform opens directories). */
async function syncDirectory(path: string): Promise<void> {
  const dir = await open(dirname(path), 'r').catch(() => null);
  if (dir === null) return;
  await dir
    .sync()
    .catch(() => {})
    .finally(() => dir.close());
}

/**
 * The outside services the scale-out suites need (PostgreSQL, Redis). Locally a suite skips, with
 * its reason, when its service is not configured or not reachable; under CI (`CI=true`) that is a
 * failure instead, so a broken CI machine can never pass by skipping.
 */
import { connect } from 'node:net';
import pg from 'pg';

/** A service to test against: its URL, or null with the reason the suite skips. */
export type ServiceAvailability = { url: string; skipReason: undefined } | { url: null; skipReason: string };

const PROBE_TIMEOUT_MS = 3_000;

/**
 * `DATABASE_URL`, checked with `select 1`; skips (or, under CI, throws) when unset or unreachable.
 * `suite` names what is skipped, e.g. "PostgreSQL store suite".
 */
export async function requirePostgres(suite = 'PostgreSQL suite'): Promise<ServiceAvailability> {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) return unavailable('DATABASE_URL not set', suite);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    return unavailable(`PostgreSQL at DATABASE_URL unreachable (${describe(error)})`, suite);
  } finally {
    await client.end().catch(() => {});
  }
  return { url, skipReason: undefined };
}

/** `REDIS_URL`, checked with PING; skips (or, under CI, throws) when unset or unreachable. */
export async function requireRedis(suite = 'Redis suite'): Promise<ServiceAvailability> {
  const url = process.env.REDIS_URL?.trim();
  if (!url) return unavailable('REDIS_URL not set', suite);
  try {
    await pingRedis(new URL(url));
  } catch (error) {
    return unavailable(`Redis at REDIS_URL unreachable (${describe(error)})`, suite);
  }
  return { url, skipReason: undefined };
}

function unavailable(problem: string, suite: string): ServiceAvailability {
  if (process.env.CI === 'true') throw new Error(`${problem}: under CI=true the ${suite} must run`);
  return { url: null, skipReason: `${problem}: ${suite} skipped` };
}

/** Sends an inline PING (with AUTH first when the URL has a password) and expects +PONG. */
function pingRedis(url: URL): Promise<void> {
  const password = decodeURIComponent(url.password);
  const user = decodeURIComponent(url.username);
  const auth = password === '' ? '' : user === '' ? `AUTH ${password}\r\n` : `AUTH ${user} ${password}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) });
    let reply = '';
    socket.setTimeout(PROBE_TIMEOUT_MS, () => socket.destroy(new Error('timed out')));
    socket.on('connect', () => socket.write(`${auth}PING\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (/^-/m.test(reply)) {
        socket.destroy();
        reject(new Error(reply.trim()));
      } else if (reply.includes('+PONG')) {
        socket.end();
        resolve();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('connection closed before PONG')));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.constructor.name : String(error);
}

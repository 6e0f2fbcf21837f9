/**
 * What an embedded server loads: it starts on SQLite with an in-process queue, so the scale-out
 * drivers (PostgreSQL, Redis, BullMQ) and the libraries used only on some requests (password
 * hashing, the third-party HTTP client) must not be loaded at start: each one costs start-up time
 * and idle memory (measured in `npm run bench -- startup`). In scale-out the same start loads them,
 * which shows the check can see them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { requirePostgres, requireRedis } from '../helpers/services.ts';

const SCRIPT = fileURLToPath(new URL('./loaded-packages.ts', import.meta.url));
const ON_DEMAND = [
  'pg',
  'ioredis',
  'bullmq',
  '@node-rs/argon2',
  'undici',
  'prom-client',
  'socks',
  'nodemailer',
  // UTS-46 tables: loaded with the first internationalized domain (idna.ts).
  'tr46',
];

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-footprint-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts a server in a child process with this environment; the packages it imported. */
function packagesLoaded(env: Record<string, string>): Promise<{ healthz: number; packages: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', MAILVET_SMTP_PROBE: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
}

describe('what a server loads at start', () => {
  it('embedded: no database or Redis drivers, no queue library, nothing only some requests need', async () => {
    // With a mail relay set: nodemailer waits for the first message.
    const { healthz, packages } = await packagesLoaded({
      MAILVET_DATA_DIR: dataDir,
      MAILVET_MAIL_URL: 'smtp://127.0.0.1:2525?tls=none',
      MAILVET_MAIL_FROM: 'no-reply@example.com',
    });
    assert.equal(healthz, 200);
    // The hook sees imports: the packages an embedded server does need are there.
    for (const needed of ['fastify', 'better-sqlite3', 'kysely'])
      assert.ok(packages.includes(needed), needed);
    for (const onDemand of ON_DEMAND) assert.ok(!packages.includes(onDemand), `${onDemand} was loaded`);
    // zod's functional build, not the chained one, which is twenty times its size.
    assert.ok(packages.includes('zod/mini'));
    assert.ok(!packages.includes('zod'), 'the chained build of zod was loaded');
  });

  it('scale-out: the PostgreSQL, Redis and BullMQ drivers are loaded', async (t) => {
    const [postgres, redis] = await Promise.all([
      requirePostgres('scale-out start'),
      requireRedis('scale-out start'),
    ]);
    if (postgres.url === null) return t.skip(postgres.skipReason);
    if (redis.url === null) return t.skip(redis.skipReason);
    const { healthz, packages } = await packagesLoaded({
      MAILVET_DATA_DIR: dataDir,
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      MAILVET_SECRET_KEY: 'ab'.repeat(32),
    });
    assert.equal(healthz, 200);
    for (const driver of ['pg', 'ioredis', 'bullmq']) assert.ok(packages.includes(driver), driver);
  });
});

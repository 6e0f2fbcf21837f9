/**
 * startServer and `mailvet serve`: listening, graceful shutdown (stop accepting, finish in-flight
 * requests, close the store), and exit 0 on SIGTERM. The slow request is a lookup of a name the
 * DNS world never answers (`blackhole.test`): it completes, as a dns_error, when the lookup's
 * deadline passes.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { issueApiKey } from '../src/accounts/key-issuance.ts';
import { openStore } from '../src/adapters/store/open-store.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import type { Store } from '../src/store.ts';
import { type DnsWorld, startDnsWorld } from './mailworld/dns-server.ts';

const SLOW_LOOKUP_MS = 1500;

let world: DnsWorld;
let dataDir: string;
before(async () => {
  world = await startDnsWorld();
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-server-'));
});
after(async () => {
  await world.close();
  await rm(dataDir, { recursive: true, force: true });
});

function environment(dir: string): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    MAILVET_DATA_DIR: dir,
    MAILVET_DNS_SERVERS: world.servers,
    MAILVET_DNS_TIMEOUT_MS: String(SLOW_LOOKUP_MS),
    MAILVET_DNS_TRIES: '1',
    MAILVET_SMTP_PROBE: 'false',
    MAILVET_RESULT_TTL: '0',
  };
}

async function issueKey(store: Store): Promise<string> {
  return (await issueApiKey(store, { name: 'server test', plan: 'free' })).key;
}

function verify(url: string, key: string, email: string): Promise<Response> {
  return fetch(`${url}/api/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('close() finishes the request in flight, refuses new connections, then closes the store', async () => {
  const dir = join(dataDir, 'in-process');
  const running = await startServer(loadConfig(environment(dir)), { handleSignals: false, logger: false });
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const key = await issueKey(running.store);
  assert.equal((await fetch(`${running.url}/healthz`)).status, 200);

  const started = Date.now();
  const slow = verify(running.url, key, 'jane@blackhole.test');
  await sleep(200);
  const closing = running.close();
  await sleep(50);
  await assert.rejects(fetch(`${running.url}/healthz`), 'no new connection once closing');

  const response = await slow;
  assert.equal(response.status, 200);
  const body = (await response.json()) as { reason: string };
  assert.equal(body.reason, 'dns_error');
  assert.ok(Date.now() - started >= SLOW_LOOKUP_MS - 100, 'the request really was slow');
  await closing;
  await assert.rejects(running.store.ping(), 'the store is closed after the server');
  await running.close();
});

/** Starts `node bin/mailvet serve` and resolves with its URL once it logs that it listens. */
async function spawnServe(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; lines: string[] }> {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...inherited } = process.env;
  const child = spawn(process.execPath, ['bin/mailvet', 'serve'], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line in 20 s; stderr: ${stderr}`)),
      20_000,
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const match = /"msg":"listening on (http:\/\/[^"]+)"/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening; stderr: ${stderr}`));
    });
  });
  return { child, url, lines };
}

test('mailvet serve: answers /healthz, and on SIGTERM finishes the request in flight and exits 0', async () => {
  const dir = join(dataDir, 'child');
  const { child, url, lines } = await spawnServe(environment(dir));
  // 'close', not 'exit': the lines written at exit (standard output's last batch) are read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });

    const store = await openStore({ dataDir: dir });
    const key = await issueKey(store);
    await store.close();

    const slow = verify(url, key, 'jane@blackhole.test');
    await sleep(300);
    child.kill('SIGTERM');
    const response = await slow;
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { reason: string }).reason, 'dns_error');
    assert.equal(await exited, 0);
    assert.ok(
      lines.some((line) => line.includes('"msg":"shut down"')),
      'logged the shutdown',
    );
    assert.equal(lines.join('\n').includes(key), false, 'the key is not in the logs');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

/**
 * The receiver example in docs/webhooks.md, run as it is written: the test takes the page's `js`
 * block, starts it as a child process (plain Node, no tsx), and delivers to it with Mailvet's own
 * sender. So the documented verification cannot drift from the signing code: a good delivery is
 * accepted, a tampered, stale or wrongly keyed one is refused, and a repeat is answered but not
 * handled twice.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type DeliveryOutcome,
  sendWebhook,
  type WebhookRequest,
} from '../../src/adapters/webhooks/http-sender.ts';
import { signWebhook, webhookSecretFor } from '../../src/webhooks/signature.ts';
import { freePort } from '../helpers/free-port.ts';

const secret = webhookSecretFor(Buffer.alloc(32, 9), 'lst_5f2c9a0e4b7d1c83');
const otherSecret = webhookSecretFor(Buffer.alloc(32, 9), 'lst_another');
const body = JSON.stringify({
  id: 'whd_5f2c9a0e4b7d1c83_completed',
  event: 'list.completed',
  created_at: '2026-03-14T09:26:53.589Z',
  data: { list: { id: 'lst_5f2c9a0e4b7d1c83', state: 'completed', counts: { total: 8, processed: 8 } } },
});

let child: ChildProcess;
let output = '';
let url = '';
let scratch = '';

/** The one `js` code block of docs/webhooks.md. */
async function docExample(): Promise<string> {
  const page = await readFile(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const blocks = [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  assert.equal(blocks.length, 1, 'docs/webhooks.md has one js example');
  return blocks[0]!;
}

function deliver(more: Partial<WebhookRequest> = {}): Promise<DeliveryOutcome> {
  return sendWebhook({
    url,
    body,
    deliveryId: 'whd_5f2c9a0e4b7d1c83_completed',
    event: 'list.completed',
    secret,
    timeoutMs: 5_000,
    allowPrivate: true,
    ...more,
  });
}

/** POSTs `payload` with a given signature header, as a forger would; resolves with the status. */
async function postRaw(payload: string, signature: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Mailvet-Signature': signature, 'Mailvet-Delivery': 'x' },
    body: payload,
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the receiver example of docs/webhooks.md', () => {
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'mailvet-webhook-doc-'));
    const file = join(scratch, 'receiver.mjs');
    await writeFile(file, await docExample());
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mailvet`;
    child = spawn(process.execPath, [file], {
      env: { ...process.env, MAILVET_WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
    });
    // Wait until it listens; a generous hang guard, not a timing assertion.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const outcome = await fetch(url, { method: 'POST', body: '{}' }).then(
        (response) => response.status,
        () => 0,
      );
      if (outcome !== 0) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the example never listened');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
    await rm(scratch, { recursive: true, force: true });
  });

  it('accepts a delivery signed by Mailvet, and handles it', async () => {
    assert.deepEqual(await deliver(), { ok: true, status: 204 });
    await until(() => output.includes('list.completed lst_5f2c9a0e4b7d1c83'));
  });

  it('answers a repeat of the same delivery without handling it again', async () => {
    assert.deepEqual(await deliver(), { ok: true, status: 204 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(output.split('list.completed').length - 1, 1, output);
  });

  it('accepts a delivery signed with the old and the new secret (rotation)', async () => {
    assert.deepEqual(await deliver({ secret: [otherSecret, secret], deliveryId: 'whd_rotated' }), {
      ok: true,
      status: 204,
    });
  });

  it('refuses a tampered body, a stale timestamp, another secret, no signature', async () => {
    const now = Math.floor(Date.now() / 1000);
    assert.equal(await postRaw(body.replace('"total":8', '"total":9'), signWebhook(secret, body, now)), 400);
    assert.equal(
      await postRaw(body, signWebhook(secret, body, now).replace(`t=${now}`, `t=${now + 1}`)),
      400,
    );
    assert.equal(await postRaw(body, ''), 400);
    assert.equal(await postRaw(body, 'garbage,=,t=,v1=zz'), 400);
    const stale = await deliver({ now: () => new Date(Date.now() - 10 * 60_000) });
    assert.deepEqual(stale, { ok: false, retry: false, status: 400, reason: 'HTTP 400' });
    const wrong = await deliver({ secret: otherSecret });
    assert.deepEqual(wrong, { ok: false, retry: false, status: 400, reason: 'HTTP 400' });
    assert.equal(await postRaw(body, signWebhook(secret, body, now)), 204, 'the control case passes');
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000; // a hang guard, not a timing assertion
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never happened; output: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Attack: JSON list uploads built to burn CPU. A 20 MB number used to cost the tokenizer 16 s of
 * event-loop time (it re-read the number from its start at every chunk), and three at once stalled
 * /healthz for seconds, from a key with no quota left. Every token is now bounded in bytes before
 * the tokenizer sees it: each upload is refused at once and the server keeps answering.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { healthzWhile } from './responsiveness.ts';

const MB = 1024 * 1024;
const HEALTHZ_BOUND_MS = 200;

let lists: ListServer;
let key: string;

before(async () => {
  lists = await startListServer({ MAILVET_SMTP_PROBE: 'false' });
  key = await lists.key({ quota: 0 });
});
after(() => lists?.close());

const attacks: Record<string, () => Buffer> = {
  'a 20 MB number': () =>
    Buffer.concat([
      Buffer.from('{"emails": ["a@b.co"], "n": '),
      Buffer.alloc(20 * MB, '9'),
      Buffer.from('}'),
    ]),
  'a 20 MB key': () =>
    Buffer.concat([
      Buffer.from('{"'),
      Buffer.alloc(20 * MB, 'k'),
      Buffer.from('": 1, "emails": ["a@b.co"]}'),
    ]),
  'a 20 MB literal': () =>
    Buffer.concat([
      Buffer.from('{"emails": ["a@b.co"], "t": '),
      Buffer.alloc(20 * MB, 'e'),
      Buffer.from('}'),
    ]),
};

async function upload(body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('each oversized token is refused with the documented 400, and nothing is stored', async () => {
  for (const [name, make] of Object.entries(attacks)) {
    const { status, body } = await upload(make());
    assert.equal(status, 400, name);
    assert.equal(body.code, 'bad_request', name);
    assert.match(String(body.message), /longer than/, name);
    assert.deepEqual(body.errors, []);
  }
  const index = (await (await lists.api(key, '/lists')).json()) as { lists: unknown[] };
  assert.deepEqual(index.lists, []);
});

test(`/healthz answers within ${HEALTHZ_BOUND_MS} ms while three such uploads run at once`, async () => {
  const bodies = Object.values(attacks).map((make) => make());
  const uploads = Promise.all(bodies.map(upload));
  const health = await healthzWhile(lists.url, uploads);
  for (const outcome of await uploads) assert.equal(outcome.status, 400);
  assert.ok(
    health.medianMs < HEALTHZ_BOUND_MS,
    `median /healthz ${health.medianMs.toFixed(0)} ms (worst ${health.worstMs.toFixed(0)}) over ${health.samples.length} samples`,
  );
});

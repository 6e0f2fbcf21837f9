/**
 * Attack: feedback fills the disk and stalls the server for everyone. Feedback is free, its cap was
 * the same 1,000,000 events on every plan, and a 10,000-event bulk request was one blocking SQLite
 * transaction: 20 bulk requests from a free key in 11 s put /healthz at a median of 893 ms (worst
 * 1,398 ms) and 97 MB on disk. Now the cap is a plan figure (free 10,000 events, starter 100,000,
 * pro 1,000,000; 413 past it), an account's feedback requests are paced (429), and a large request
 * gives the event loop a turn every few hundred events, so /healthz keeps answering.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { healthzWhile } from './responsiveness.ts';

const HEALTHZ_MEDIAN_BOUND_MS = 100;
const EVENTS_PER_REQUEST = 10_000;

let server: ListServer;

before(async () => {
  server = await startListServer({ MAILVET_SMTP_PROBE: 'false' });
});
after(() => server?.close());

/** A key of a new account on `plan`, with the plan's own rate. */
async function keyOn(plan: string): Promise<{ key: string; accountId: string }> {
  const issued = await issueApiKey(server.server.store, { name: `${plan} flood`, plan });
  return { key: issued.key, accountId: issued.record.accountId };
}

let batch = 0;
/** A bulk request of 10,000 distinct hard bounces. */
function bulkBody(): string {
  batch += 1;
  const events = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => ({
    email: `flood${batch}-${i}@example${i % 50}.com`,
    event: 'hard_bounce',
    at: '2026-10-01T00:00:00Z',
  }));
  return JSON.stringify({ events });
}

/** 20 bulk requests of 10,000 events, two at a time; the statuses they got. */
async function flood(key: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let pair = 0; pair < 10; pair++) {
    const answers = await Promise.all(
      [0, 1].map(() =>
        server.api(key, '/feedback/bulk', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bulkBody(),
        }),
      ),
    );
    for (const answer of answers) {
      await answer.arrayBuffer();
      statuses.push(answer.status);
    }
  }
  return statuses;
}

test('a free key: at most 10,000 events kept, the rest refused (413, 429), /healthz unharmed', async () => {
  const { key, accountId } = await keyOn('free');
  const attack = flood(key);
  const health = await healthzWhile(server.url, attack);
  const statuses = await attack;
  assert.ok(
    statuses.every((status) => [200, 413, 429].includes(status)),
    `statuses ${statuses}`,
  );
  assert.equal(statuses.filter((status) => status === 200).length, 1, `statuses ${statuses}`);
  assert.ok(statuses.includes(413), 'the plan cap refused a request');
  assert.ok(statuses.includes(429), 'the pace refused a request');
  assert.equal(await server.server.store.feedback.countEvents(accountId), EVENTS_PER_REQUEST);
  assert.ok(
    health.medianMs < HEALTHZ_MEDIAN_BOUND_MS,
    `median /healthz ${health.medianMs.toFixed(0)} ms (worst ${health.worstMs.toFixed(0)}) over ${health.samples.length} samples`,
  );
});

test('a pro key writing 10,000 events a request as fast as its pace allows: /healthz unharmed', async () => {
  const { key, accountId } = await keyOn('pro');
  const attack = flood(key);
  const health = await healthzWhile(server.url, attack);
  const statuses = await attack;
  const accepted = statuses.filter((status) => status === 200).length;
  assert.ok(accepted >= 2, `statuses ${statuses}`);
  assert.ok(
    statuses.every((status) => status === 200 || status === 429),
    `statuses ${statuses}`,
  );
  assert.equal(await server.server.store.feedback.countEvents(accountId), accepted * EVENTS_PER_REQUEST);
  assert.ok(
    health.medianMs < HEALTHZ_MEDIAN_BOUND_MS,
    `median /healthz ${health.medianMs.toFixed(0)} ms (worst ${health.worstMs.toFixed(0)}) over ${health.samples.length} samples`,
  );
});

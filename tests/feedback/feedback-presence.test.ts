/**
 * An account without feedback costs its verifications no feedback lookup: whether it has any is
 * asked once per interval, and feedback recorded through this process counts at once; feedback
 * another process stores counts once the interval has passed (a clock of the test's). Against a
 * real SQLite store, whose lookups are counted.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { FeedbackService } from '../../src/feedback/feedback-service.ts';
import type { FeedbackStore } from '../../src/feedback/ports.ts';
import type { Store } from '../../src/store.ts';
import { verificationResult } from '../adapters/store/list-store-contract.ts';

let dir: string;
let store: Store;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailvet-feedback-presence-'));
  store = await openStore({ dataDir: dir });
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The store's feedback with its lookups counted. */
function counted(feedback: FeedbackStore) {
  const calls = { hasEvents: 0, outcomeOf: 0 };
  const wrapped: FeedbackStore = {
    record: (accountId, events, maxEvents) => feedback.record(accountId, events, maxEvents),
    outcomeOf: (accountId, address) => {
      calls.outcomeOf += 1;
      return feedback.outcomeOf(accountId, address);
    },
    domainStats: (accountId, domain) => feedback.domainStats(accountId, domain),
    deliveredAtDomain: (accountId, domain, limit) => feedback.deliveredAtDomain(accountId, domain, limit),
    countEvents: (accountId) => feedback.countEvents(accountId),
    hasEvents: (accountId) => {
      calls.hasEvents += 1;
      return feedback.hasEvents(accountId);
    },
  };
  return { wrapped, calls };
}

const BOUNCE = { email: 'gone@example.test', event: 'hard_bounce' as const, at: '2026-11-01T00:00:00.000Z' };

describe('feedback presence', () => {
  it('asks whether an account has feedback once per interval, not for every verification', async () => {
    const account = await store.createAccount({ name: 'Quiet', plan: 'free' });
    const { wrapped, calls } = counted(store.feedback);
    const service = new FeedbackService({ store: wrapped, maxStoredEvents: 100, presenceTtlMs: 60_000 });
    for (let i = 0; i < 50; i++) {
      const result = await service.applyTo(account.id, verificationResult(`user${i}@example.test`));
      assert.equal(result.status, 'VALID');
    }
    assert.deepEqual(calls, { hasEvents: 1, outcomeOf: 0 });

    // Feedback sent through this service counts from the next verification on.
    const submitted = await service.submit(account.id, [BOUNCE]);
    assert.equal(submitted.kind, 'recorded');
    const bounced = await service.applyTo(account.id, verificationResult('gone@example.test'));
    assert.equal(bounced.status, 'INVALID');
    assert.equal(bounced.reason, 'bounced');
    assert.deepEqual(calls, { hasEvents: 2, outcomeOf: 1 });
  });

  it('sees feedback another process stored once the interval has passed', async () => {
    const account = await store.createAccount({ name: 'Elsewhere', plan: 'free' });
    let clock = 0;
    const service = new FeedbackService({
      store: store.feedback,
      maxStoredEvents: 100,
      presenceTtlMs: 1000,
      monotonicMs: () => clock,
    });
    assert.equal(
      (await service.applyTo(account.id, verificationResult('gone@example.test'))).status,
      'VALID',
    );
    // Another process (here: the store itself, not this service) records a bounce.
    const other = new FeedbackService({ store: store.feedback, maxStoredEvents: 100 });
    assert.equal((await other.submit(account.id, [BOUNCE])).kind, 'recorded');
    assert.equal(
      (await service.applyTo(account.id, verificationResult('gone@example.test'))).status,
      'VALID',
      'within the interval, the belief of no feedback stands',
    );
    clock += 999;
    assert.equal(
      (await service.applyTo(account.id, verificationResult('gone@example.test'))).status,
      'VALID',
    );
    clock += 1;
    assert.equal(
      (await service.applyTo(account.id, verificationResult('gone@example.test'))).status,
      'INVALID',
    );
  });
});

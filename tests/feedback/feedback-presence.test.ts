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

  it('asks once when many verifications find the belief expired together', async () => {
    const account = await store.createAccount({ name: 'Busy', plan: 'free' });
    const { wrapped, calls } = counted(store.feedback);
    let clock = 0;
    const service = new FeedbackService({
      store: wrapped,
      maxStoredEvents: 100,
      presenceTtlMs: 1000,
      monotonicMs: () => clock,
    });
    const wave = () =>
      Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          service.applyTo(account.id, verificationResult(`user${i}@example.test`)),
        ),
      );
    assert.ok((await wave()).every((result) => result.status === 'VALID'));
    assert.equal(calls.hasEvents, 1);
    clock += 1000;
    await wave();
    assert.equal(calls.hasEvents, 2, 'one lookup for the second wave too');
  });

  it('does not keep an answer that was asked before feedback was recorded here', async () => {
    const account = await store.createAccount({ name: 'Racing', plan: 'free' });
    const { wrapped, calls } = counted(store.feedback);
    // The first question's answer is held back until the bounce is recorded.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: FeedbackStore = {
      ...wrapped,
      hasEvents: async (accountId) => {
        const answer = wrapped.hasEvents(accountId);
        if (calls.hasEvents === 1) await held;
        return answer;
      },
    };
    const service = new FeedbackService({ store: slow, maxStoredEvents: 100, presenceTtlMs: 60_000 });
    const before = service.applyTo(account.id, verificationResult('gone@example.test'));
    assert.equal((await service.submit(account.id, [BOUNCE])).kind, 'recorded');
    release();
    assert.equal((await before).status, 'VALID', 'asked before the bounce');
    const afterwards = await service.applyTo(account.id, verificationResult('gone@example.test'));
    assert.equal(afterwards.status, 'INVALID', 'the stale answer was not kept');
    assert.equal(calls.hasEvents, 2);
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

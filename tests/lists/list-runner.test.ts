/**
 * ListRunner on a real SQLite store with a fake verifier: what a run does to a list's state, its
 * counters, its stored results and the key's quota. The verifier is counted, so "verified once",
 * "never verified" and "re-checked" are observed rather than inferred from the counters.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { BUILT_IN_PLANS, type Plan } from '../../src/accounts/plans.ts';
import type { ApiKeyRecord } from '../../src/accounts/ports.ts';
import { openStore } from '../../src/adapters/store/open-store.ts';
import { ListRunner, type ListRunnerDeps } from '../../src/lists/list-runner.ts';
import type { UploadedRow } from '../../src/lists/ports.ts';
import type { Store } from '../../src/store.ts';
import { noEvidence } from '../../src/verification/evidence.ts';
import type { Reason, Status, VerificationResult } from '../../src/verification/report.ts';
import { accountUsage } from '../adapters/store/store-fixtures.ts';
import { addUploadRows } from '../helpers/list-upload.ts';

/** A fixed clock: usage lands in a known month and re-check times are exact. */
const NOW = new Date('2026-03-10T12:00:00.000Z');
const MONTH = '2026-03';
const RECHECK_MS = 60_000;
/** `tiny` has a quota below the quota test's address count. */
const PLANS: Readonly<Record<string, Plan>> = {
  ...BUILT_IN_PLANS,
  tiny: { name: 'tiny', monthlyVerifications: 3, monthlyBulkRequests: 10, ratePerSecond: 5 },
};

/** A whole result as the pipeline makes it; the runner acts on its status and reason. */
function result(email: string, status: Status, reason: Reason): VerificationResult {
  const valid = status === 'VALID';
  return {
    email,
    checks: {
      ...{ syntax: true, domain_exists: true, mx_records: true, mailbox_exists: valid, disposable: false },
      ...{ role_based: status === 'ROLE_BASED', suggestions: [], free_provider: false, catch_all: false },
      smtp: valid ? 'deliverable' : 'unknown',
      catch_all_confidence: null,
    },
    score: valid ? 95 : 10,
    status,
    reason,
    duration_ms: 1,
    evidence: noEvidence(),
  };
}

/** The fake verifier's default verdicts, by local part: `bad…` is rejected, `info` a role, else valid. */
function verdictOf(email: string): VerificationResult {
  const local = email.slice(0, email.lastIndexOf('@')).toLowerCase();
  if (local.startsWith('bad')) return result(email, 'INVALID', 'mailbox_rejected');
  if (local === 'info') return result(email, 'ROLE_BASED', 'role_account');
  return result(email, 'VALID', 'mailbox_confirmed');
}

/** A verifier recording its calls; `decide` gets the address and how often it was asked (1-based). */
function fakeVerifier(decide: (email: string, nth: number) => VerificationResult = verdictOf) {
  const calls: Array<{ email: string; fresh: boolean }> = [];
  const verify: ListRunnerDeps['verify'] = async (email, options) => {
    calls.push({ email, fresh: options.fresh });
    // Yield, as a real verification does, so concurrent work really interleaves.
    await new Promise((resolve) => setImmediate(resolve));
    return decide(email, calls.filter((call) => call.email === email).length);
  };
  return { calls, verify };
}

/** The statuses with a count: the rest must be 0. */
const counted = (byStatus: Record<Status, number>) =>
  Object.fromEntries(Object.entries(byStatus).filter(([, n]) => n !== 0));

/** A row as the list service makes it: duplicates share the key (domain lower-cased). */
function row(rowNumber: number, email: string): UploadedRow {
  const at = email.lastIndexOf('@');
  const domain = email.slice(at + 1).toLowerCase();
  return { rowNumber, email, addressKey: `${email.slice(0, at)}@${domain}`, domain, fields: null };
}

describe('ListRunner', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailvet-list-runner-'));
  let store: Store;
  before(async () => {
    store = await openStore({ dataDir });
  });
  after(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const newKey = async (plan = 'free'): Promise<ApiKeyRecord> =>
    (await issueApiKey(store, { name: 'runner test', plan })).record;

  /** Uploads the rows and finishes the upload, which leaves the list `queued`. */
  async function upload(key: ApiKeyRecord, emails: string[], webhookUrl: string | null = null) {
    const owner = { accountId: key.accountId, apiKeyId: key.id };
    const id = await store.lists.beginList({ ...owner, source: 'json', header: null }, NOW);
    const rows = emails.map((email, i) => row(i + 1, email));
    await addUploadRows(store.lists, id, rows, NOW);
    const list = await store.lists.finishUpload(id, NOW, { name: 'runner list', webhookUrl });
    assert.equal(list.state, 'queued');
    return id;
  }

  const runner = (verify: ListRunnerDeps['verify'], extra: Partial<ListRunnerDeps> = {}) =>
    new ListRunner({ store, plans: PLANS, verify, recheckDelayMs: RECHECK_MS, now: () => NOW, ...extra });
  const getList = async (id: string) => {
    const list = await store.lists.getList(id);
    assert.ok(list, `list ${id} exists`);
    return list;
  };
  const results = async (id: string) => (await store.lists.resultRows(id, 0, 1000)).map((r) => r.result);
  const used = async (key: ApiKeyRecord) => (await accountUsage(store, key, MONTH)).verifications;
  /** The webhook events recorded since the last call (claiming leases them away from the next). */
  const claimEvents = () =>
    store.lists.claimWebhookDeliveries(new Date(NOW.getTime() + 1000), new Date(NOW.getTime() + 3.6e6), 10);

  it('verifies every address, stores each result and completes with per-status counts', async () => {
    const key = await newKey();
    const emails = ['ann@a.test', 'bad.bob@a.test', 'info@b.test', 'cy@b.test', 'bad@c.test'];
    const id = await upload(key, emails, 'https://hooks.example/mailvet');
    const fake = fakeVerifier();

    assert.deepEqual(await runner(fake.verify).run(id), {});

    const list = await getList(id);
    assert.equal(list.state, 'completed');
    assert.equal(list.finishedAt, NOW.toISOString());
    assert.deepEqual([list.counts.total, list.counts.unique, list.counts.processed], [5, 5, 5]);
    assert.deepEqual(counted(list.counts.byStatus), { VALID: 2, INVALID: 2, ROLE_BASED: 1 });
    assert.deepEqual(fake.calls.map((call) => call.email).sort(), [...emails].sort());
    assert.deepEqual(
      fake.calls.filter((call) => call.fresh),
      [],
      'a first pass may use the result cache',
    );
    // Read back through the store: every row has its own address's result, in upload order.
    const stored = await results(id);
    assert.deepEqual(
      stored.map((r) => [r?.email, r?.status]),
      emails.map((email) => [email, verdictOf(email).status]),
    );
    assert.equal(await used(key), 5);
    // A list with a webhook records its completion event for the dispatcher.
    const events = await claimEvents();
    assert.deepEqual(
      events.map((e) => [e.listId, e.event, e.url, JSON.parse(e.body).event]),
      [[id, 'list.completed', 'https://hooks.example/mailvet', 'list.completed']],
    );
  });

  it('verifies and charges a duplicated address once but counts every row', async () => {
    const key = await newKey();
    const emails = ['d@one.test', 'o@one.test', 'd@ONE.test', 'd@one.test', 'bad@two.test', 'bad@two.test'];
    const id = await upload(key, emails);
    const fake = fakeVerifier();

    await runner(fake.verify).run(id);

    assert.equal(fake.calls.length, 3, 'one verification per unique address');
    assert.deepEqual(new Set(fake.calls.map((call) => call.email.toLowerCase())).size, 3);
    const list = await getList(id);
    assert.equal(list.state, 'completed');
    assert.deepEqual([list.counts.total, list.counts.unique, list.counts.processed], [6, 3, 6]);
    assert.equal(list.processedAddresses, 3);
    assert.deepEqual(counted(list.counts.byStatus), { VALID: 4, INVALID: 2 });
    assert.equal(await used(key), 3);
    const stored = await results(id);
    assert.equal(stored.length, 6);
    // Each duplicate row echoes its own spelling of the address.
    assert.deepEqual(
      stored.map((r) => r?.email),
      emails,
    );
  });

  it('pauses for quota once the monthly quota is used up, verifying only what was granted', async () => {
    const key = await newKey('tiny');
    const emails = ['a1@quota.test', 'a2@quota.test', 'a3@quota.test', 'a4@quota.test', 'a5@quota.test'];
    const id = await upload(key, emails);
    const fake = fakeVerifier();

    await runner(fake.verify).run(id);

    const list = await getList(id);
    assert.equal(list.state, 'paused');
    assert.equal(list.pauseReason, 'quota');
    assert.match(list.message ?? '', /quota/);
    // Pending addresses are charged in domain-then-row order: the first three get the quota.
    assert.deepEqual(fake.calls.map((call) => call.email).sort(), emails.slice(0, 3));
    assert.equal(await used(key), 3);
    assert.equal(list.processedAddresses, 3);
    assert.equal((await results(id)).filter((r) => r !== null).length, 3);
  });

  it('does not verify anything for a list cancelled before its run', async () => {
    const key = await newKey();
    const id = await upload(key, ['ann@cancel.test', 'bob@cancel.test']);
    assert.equal(await store.lists.transition(id, ['queued'], 'cancelled', NOW), true);
    const fake = fakeVerifier();

    assert.deepEqual(await runner(fake.verify).run(id), {});

    assert.equal(fake.calls.length, 0);
    assert.equal((await getList(id)).state, 'cancelled');
    assert.equal(await used(key), 0);
    assert.deepEqual(await results(id), [null, null]);
  });

  it('fails the list, with its list.failed event, without verifying when its key was revoked', async () => {
    const key = await newKey();
    const id = await upload(key, ['ann@revoked.test'], 'https://hooks.example/failed');
    assert.equal(await store.revokeApiKey(key.id), true);
    const fake = fakeVerifier();

    await runner(fake.verify).run(id);

    assert.equal(fake.calls.length, 0);
    const list = await getList(id);
    assert.equal(list.state, 'failed');
    assert.match(list.message ?? '', /revoked/);
    const events = (await claimEvents()).map((e) => `${e.event} ${e.listId}`);
    assert.deepEqual(events, [`list.failed ${id}`]);
  });

  it('re-checks a greylisted address after recheckDelayMs, then completes with the final result', async () => {
    const key = await newKey();
    const id = await upload(key, ['grey@slow.test', 'ann@fast.test']);
    let clock = NOW;
    const fake = fakeVerifier((email, nth) =>
      email === 'grey@slow.test' && nth === 1
        ? result(email, 'PROBABLY_VALID', 'greylisted')
        : verdictOf(email),
    );
    const run = runner(fake.verify, { now: () => clock });

    // Only a re-check not yet due remains: the run gives its slot back and says when to return.
    const first = await run.run(id);
    assert.equal(first.waitUntil?.toISOString(), new Date(NOW.getTime() + RECHECK_MS).toISOString());
    let list = await getList(id);
    assert.equal(list.state, 'running');
    assert.equal(list.processedAddresses, 1);
    // A provisional result is not a result yet.
    const statuses = (await results(id)).map((r) => r?.status ?? null);
    assert.deepEqual(statuses, [null, 'VALID']);

    clock = new Date(NOW.getTime() + RECHECK_MS);
    assert.deepEqual(await run.run(id), {});
    // Sorted: the first pass's domains run in parallel lanes, in no promised order. The re-check
    // skips the result cache, which would only repeat the greylisting.
    const calls = fake.calls.map((call) => `${call.email}${call.fresh ? ' (fresh)' : ''}`).sort();
    assert.deepEqual(calls, ['ann@fast.test', 'grey@slow.test', 'grey@slow.test (fresh)']);
    list = await getList(id);
    assert.equal(list.state, 'completed');
    assert.deepEqual(counted(list.counts.byStatus), { VALID: 2 });
    assert.equal(await used(key), 2, 'a re-check is not charged again');
  });

  it('keeps the provisional result as final once maxAttempts verifications were made', async () => {
    const key = await newKey();
    const id = await upload(key, ['grey@always.test']);
    let clock = NOW;
    const fake = fakeVerifier((email) => result(email, 'PROBABLY_VALID', 'greylisted'));
    const run = runner(fake.verify, { now: () => clock, maxAttempts: 2 });

    assert.ok((await run.run(id)).waitUntil);
    clock = new Date(NOW.getTime() + RECHECK_MS);
    assert.deepEqual(await run.run(id), {});

    assert.equal(fake.calls.length, 2);
    const list = await getList(id);
    assert.equal(list.state, 'completed');
    assert.deepEqual(counted(list.counts.byStatus), { PROBABLY_VALID: 1 });
    assert.equal((await results(id))[0]?.reason, 'greylisted');
  });
});

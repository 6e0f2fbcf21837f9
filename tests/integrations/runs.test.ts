/**
 * Runs end to end on the real server (store, queue, in-process worker) over the mail
 * world and the Mailchimp emulator: an audience's members read, verified as a list job (real DNS
 * and SMTP on loopback) and written back in batches; a dry run writes nothing; `changed` and
 * `stale` scopes; one run per audience at a time; cancel; a revoked key fails the run with a
 * clear message; another account's run is a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let server: ListServer;
let key: string;

/** Addresses of the mail world and what they verify as. */
const VALID = ['alice@accept.test', 'bob@accept.test'];
const INVALID = ['nobody@accept.test', 'ghost@accept.test'];
const RISKY = ['anyone@catchall.test'];

before(async () => {
  emulator = await startMailchimpEmulator();
  emulator.batchStepMs = 1;
  server = await startListServer({
    MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    MAILVET_RUN_POLL_MS: '100',
  });
  key = await server.key({ quota: 100_000 });
});
after(async () => {
  await server?.close();
  await emulator?.close();
});

const api = (method: string, path: string, body?: unknown, apiKey = key) =>
  server.call(apiKey, method, path, body);

/** A Mailchimp account with one audience of these members, connected to `apiKey`'s account. */
async function connected(
  members: Array<{
    email: string;
    status?: 'subscribed' | 'unsubscribed';
    mergeFields?: Record<string, unknown>;
  }>,
  apiKey = key,
): Promise<{ account: EmulatedAccount; audience: EmulatedAudience; integrationId: string }> {
  const account = emulator.addAccount({ name: 'Shop' });
  const audience = emulator.addAudience(account, { name: 'Customers' });
  for (const member of members) emulator.addMember(audience, { status: 'subscribed', ...member });
  const created = await api(
    'POST',
    '/integrations',
    { provider: 'mailchimp', api_key: account.apiKey },
    apiKey,
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { account, audience, integrationId: created.body.id };
}

/** Polls the run until it ends (a hang guard, not a timing assertion). */
async function ended(integrationId: string, runId: string, apiKey = key) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = await api('GET', `/integrations/${integrationId}/runs/${runId}`, undefined, apiKey);
    assert.equal(run.status, 200);
    if (['completed', 'failed', 'cancelled'].includes(run.body.state)) return run.body;
    if (Date.now() > deadline) throw new Error(`run still ${run.body.state}: ${JSON.stringify(run.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('runs', () => {
  it('reads the subscribed members, verifies them as a list and writes results back in batches', async () => {
    const filler = Array.from({ length: 150 }, (_, i) => ({ email: `someone${i}@catchall.test` }));
    const { account, audience, integrationId } = await connected([
      ...VALID.map((email) => ({ email })),
      ...INVALID.map((email) => ({ email })),
      ...RISKY.map((email) => ({ email })),
      { email: 'carol@accept.test', status: 'unsubscribed' },
      ...filler,
    ]);
    emulator.resetStats(account);
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal(started.body.trigger, 'manual');
    assert.equal(started.body.state, 'queued');
    assert.deepEqual(started.body.statuses, ['subscribed']);
    assert.deepEqual(started.body.write_back, {
      fields: true,
      tags: true,
      segments: true,
      unsubscribe_invalid: false,
    });

    const run = await ended(integrationId, started.body.id);
    assert.equal(run.state, 'completed', JSON.stringify(run));
    const members = 5 + filler.length;
    assert.deepEqual(run.counts, {
      members,
      verified: members,
      written: members,
      write_errors: 0,
      valid: 2,
      risky: 1 + filler.length,
      invalid: 2,
    });
    assert.ok(run.list_id, 'the run names its list');
    assert.ok(run.finished_at);

    // The results are the list's: one row per member, with the member's id beside the address.
    const results = await server.api(key, `/lists/${run.list_id}/results?format=csv`);
    const csv = await results.text();
    assert.equal(results.status, 200);
    assert.match(csv.split('\n')[0]!, /^email,member_id,/);
    assert.equal(csv.trim().split('\n').length, members + 1);

    const alice = emulator.member(audience, 'alice@accept.test')!;
    assert.equal(alice.mergeFields.MV_STATUS, 'VALID');
    assert.equal(typeof alice.mergeFields.MV_SCORE, 'number');
    assert.match(String(alice.mergeFields.MV_CHECKED), /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(alice.tags, ['mailvet-valid']);
    const nobody = emulator.member(audience, 'nobody@accept.test')!;
    assert.deepEqual(nobody.tags, ['mailvet-invalid']);
    assert.equal(nobody.status, 'subscribed', 'unsubscribed only when asked');
    assert.deepEqual(emulator.member(audience, RISKY[0]!)!.tags, ['mailvet-risky']);
    assert.equal(
      emulator.member(audience, 'carol@accept.test')!.mergeFields.MV_STATUS,
      undefined,
      'not read',
    );
    assert.deepEqual(
      emulator
        .segments(audience)
        .filter((segment) => segment.type === 'saved')
        .map((segment) => segment.name)
        .sort(),
      ['Mailvet score 0-49', 'Mailvet score 50-79', 'Mailvet score 80-100'],
    );
    assert.deepEqual(emulator.destructiveCalls(account), [], 'nothing deleted or archived');

    // Writes went in batches, never one request per member.
    const byRoute = emulator.stats(account).byRoute;
    assert.equal(byRoute['POST /batches'], 1);
    assert.equal(byRoute['PATCH /lists/{list_id}/members/{subscriber_hash}'] ?? 0, 0);
    assert.equal(byRoute['POST /lists/{list_id}/members/{subscriber_hash}/tags'] ?? 0, 0);
    assert.ok(emulator.stats(account).maxInFlight <= 10);

    // The audience shows its last run.
    const audiences = await api('GET', `/integrations/${integrationId}/audiences`);
    const shown = audiences.body.audiences.find((each: { id: string }) => each.id === audience.id);
    assert.equal(shown.last_run.id, run.id);
    assert.equal(shown.last_run.state, 'completed');
    const history = await api('GET', `/integrations/${integrationId}/runs`);
    assert.deepEqual(
      history.body.runs.map((each: { id: string }) => each.id),
      [run.id],
    );
  });

  it('a run out of quota pauses with a message and goes on by itself when quota is back', async () => {
    const quotaKey = await server.key({ quota: 3, name: 'quota run' });
    const { audience, integrationId } = await connected(
      ['alice', 'bob', 'carol', 'dave', 'erin'].map((name) => ({ email: `${name}@accept.test` })),
      quotaKey,
    );
    const started = await api(
      'POST',
      `/integrations/${integrationId}/runs`,
      { audience_id: audience.id },
      quotaKey,
    );
    assert.equal(started.status, 202);
    let paused: { state: string; message: string; counts: { verified: number } } | undefined;
    for (let i = 0; paused === undefined; i++) {
      const run = await api(
        'GET',
        `/integrations/${integrationId}/runs/${started.body.id}`,
        undefined,
        quotaKey,
      );
      if (run.body.state === 'paused') paused = run.body;
      else assert.ok(!['completed', 'failed'].includes(run.body.state) && i < 3000, JSON.stringify(run.body));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(paused.message, /quota/i);
    assert.equal(paused.counts.verified, 3);
    assert.equal(
      emulator.member(audience, 'alice@accept.test')!.mergeFields.MV_STATUS,
      undefined,
      'nothing written yet',
    );

    // The operator raises the account's quota: the list sweep resumes the list, the run follows it.
    const owner = (await server.server.store.listApiKeys()).find((record) => record.name === 'quota run')!;
    await server.server.store.updateAccount(owner.accountId, { monthlyQuota: 100 });
    const run = await ended(integrationId, started.body.id, quotaKey);
    assert.equal(run.state, 'completed', JSON.stringify(run));
    assert.deepEqual(
      { verified: run.counts.verified, written: run.counts.written },
      { verified: 5, written: 5 },
    );
    assert.equal(run.message, null);
  });

  it('a dry run verifies and counts, and changes nothing in Mailchimp', async () => {
    const { account, audience, integrationId } = await connected(
      [...VALID, ...INVALID].map((email) => ({ email })),
    );
    emulator.resetStats(account);
    const started = await api('POST', `/integrations/${integrationId}/runs`, {
      audience_id: audience.id,
      write_back: null,
    });
    assert.equal(started.status, 202);
    const run = await ended(integrationId, started.body.id);
    assert.equal(run.state, 'completed');
    assert.equal(run.write_back, null);
    assert.deepEqual(
      { valid: run.counts.valid, invalid: run.counts.invalid, written: run.counts.written },
      { valid: 2, invalid: 2, written: 0 },
    );
    const writes = Object.entries(emulator.stats(account).byRoute).filter(
      ([route]) => !route.startsWith('GET '),
    );
    assert.deepEqual(writes, [], 'only reads');
    assert.equal(emulator.member(audience, VALID[0]!)!.mergeFields.MV_STATUS, undefined);
    assert.deepEqual(emulator.member(audience, VALID[0]!)!.tags, []);
  });

  it('unsubscribes invalid members only when asked, and never deletes one', async () => {
    const { account, audience, integrationId } = await connected(
      [...VALID, ...INVALID].map((email) => ({ email })),
    );
    const started = await api('POST', `/integrations/${integrationId}/runs`, {
      audience_id: audience.id,
      write_back: { unsubscribe_invalid: true, segments: false },
    });
    const run = await ended(integrationId, started.body.id);
    assert.equal(run.state, 'completed');
    for (const email of INVALID) assert.equal(emulator.member(audience, email)!.status, 'unsubscribed');
    for (const email of VALID) assert.equal(emulator.member(audience, email)!.status, 'subscribed');
    assert.deepEqual(
      emulator.segments(audience).filter((segment) => segment.type === 'saved'),
      [],
      'no saved segments when not asked',
    );
    assert.deepEqual(emulator.destructiveCalls(account), []);
  });

  it('scope changed reads only members changed since the last completed run; stale only old or unchecked ones', async () => {
    const { audience, integrationId } = await connected(VALID.map((email) => ({ email })));
    emulator.addMergeField(audience, { tag: 'MV_CHECKED', name: 'Checked', type: 'date' });
    emulator.addMember(audience, { email: 'dave@accept.test', mergeFields: { MV_CHECKED: '2020-01-01' } });
    const first = await ended(
      integrationId,
      (await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id })).body.id,
    );
    assert.equal(first.counts.members, 3);

    // Nothing changed but the first run's own write-back: a changed run reads nobody.
    const none = await ended(
      integrationId,
      (
        await api('POST', `/integrations/${integrationId}/runs`, {
          audience_id: audience.id,
          scope: 'changed',
        })
      ).body.id,
    );
    assert.equal(none.state, 'completed', JSON.stringify(none));
    assert.equal(none.counts.members, 0);

    // A new subscriber, after it: the changed run reads exactly that one.
    emulator.addMember(audience, { email: 'erin@accept.test', status: 'subscribed' });
    const changed = await ended(
      integrationId,
      (
        await api('POST', `/integrations/${integrationId}/runs`, {
          audience_id: audience.id,
          scope: 'changed',
        })
      ).body.id,
    );
    assert.equal(changed.counts.members, 1, JSON.stringify(changed));
    assert.equal(emulator.member(audience, 'erin@accept.test')!.mergeFields.MV_STATUS, 'VALID');

    // Stale: every member was checked today but one that never was.
    emulator.addMember(audience, { email: 'frank@accept.test', status: 'subscribed' });
    const stale = await ended(
      integrationId,
      (
        await api('POST', `/integrations/${integrationId}/runs`, {
          audience_id: audience.id,
          scope: 'stale',
          stale_days: 30,
          write_back: null,
        })
      ).body.id,
    );
    assert.equal(stale.counts.members, 1);
  });

  it('one run per audience at a time; cancel ends it; bad requests are 4xx', async () => {
    const { audience, integrationId } = await connected(
      Array.from({ length: 40 }, (_, i) => ({ email: `slow${i}@tarpit.test` })),
    );
    const first = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(first.status, 202);
    const second = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(second.status, 409);
    assert.equal(second.body.code, 'conflict');
    assert.match(second.body.message, /run going/);

    const cancelled = await api('POST', `/integrations/${integrationId}/runs/${first.body.id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.state, 'cancelled');
    const again = await api('POST', `/integrations/${integrationId}/runs/${first.body.id}/cancel`);
    assert.equal(again.status, 409);
    const run = await ended(integrationId, first.body.id);
    assert.equal(run.state, 'cancelled');
    if (run.list_id !== null) {
      const list = await api('GET', `/lists/${run.list_id}`);
      assert.equal(list.body.state, 'cancelled', 'its list stops too');
    }
    // The audience is free again.
    const third = await api('POST', `/integrations/${integrationId}/runs`, {
      audience_id: audience.id,
      write_back: null,
    });
    assert.equal(third.status, 202);
    await api('POST', `/integrations/${integrationId}/runs/${third.body.id}/cancel`);

    const unknown = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: 'nope' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.errors[0].field, 'audience_id');
    for (const body of [
      {},
      { audience_id: audience.id, scope: 'everything' },
      { audience_id: audience.id, statuses: [] },
      { audience_id: audience.id, statuses: ['archived'] },
      { audience_id: audience.id, stale_days: 0 },
      { audience_id: audience.id, write_back: { delete: true } },
    ]) {
      const refused = await api('POST', `/integrations/${integrationId}/runs`, body);
      assert.equal(refused.status, 422, JSON.stringify(body));
      assert.equal(refused.body.code, 'validation_failed');
    }
    assert.equal((await api('GET', `/integrations/${integrationId}/runs?limit=0`)).status, 422);
    assert.equal((await api('GET', `/integrations/${integrationId}/runs?cursor=zzz`)).status, 422);
  });

  it("another account's integration and runs are 404s", async () => {
    const { audience, integrationId } = await connected(VALID.map((email) => ({ email })));
    const run = await ended(
      integrationId,
      (
        await api('POST', `/integrations/${integrationId}/runs`, {
          audience_id: audience.id,
          write_back: null,
        })
      ).body.id,
    );
    const other = await server.otherAccountKey();
    assert.equal((await api('GET', `/integrations/${integrationId}/runs`, undefined, other)).status, 404);
    assert.equal(
      (await api('GET', `/integrations/${integrationId}/runs/${run.id}`, undefined, other)).status,
      404,
    );
    assert.equal(
      (await api('POST', `/integrations/${integrationId}/runs/${run.id}/cancel`, undefined, other)).status,
      404,
    );
    assert.equal(
      (await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id }, other)).status,
      404,
    );
    // Their own integration does not reach this run either.
    const theirs = await connected([], other);
    assert.equal(
      (await api('GET', `/integrations/${theirs.integrationId}/runs/${run.id}`, undefined, other)).status,
      404,
    );
  });

  it('a key revoked in Mailchimp fails the run with a clear message, and disconnects the integration', async () => {
    // Greylisted addresses are checked again later: the run stays in verifying long enough to revoke.
    const { account, audience, integrationId } = await connected(
      Array.from({ length: 5 }, (_, i) => ({ email: `user${i}@greylist.test` })),
    );
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(started.status, 202);
    for (let i = 0; ; i++) {
      const run = await api('GET', `/integrations/${integrationId}/runs/${started.body.id}`);
      if (run.body.state === 'verifying') break;
      assert.ok(['queued', 'reading'].includes(run.body.state) && i < 1000, JSON.stringify(run.body));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    emulator.revokeKey(account);
    const run = await ended(integrationId, started.body.id);
    assert.equal(run.state, 'failed', JSON.stringify(run));
    assert.match(run.message, /connect the account again/i);
    assert.equal(run.counts.verified, 5, 'the verification is kept: its list completed');
    const integration = await api('GET', `/integrations/${integrationId}`);
    assert.equal(integration.body.state, 'disconnected');
    const refused = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'integration_disconnected');
  });
});

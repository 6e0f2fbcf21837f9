/**
 * Feedback beyond single requests, on the real server (store, queue, in-process worker) over the
 * mail world (real DNS and SMTP on loopback) and the Mailchimp emulator:
 * - a list job gives `bounced` for the addresses its account reported, and not for another's list;
 * - a Mailchimp run records the audience's `cleaned` members as the account's hard bounces at
 *   their change time (a second run records nothing twice), so verifying one afterwards gives
 *   `bounced` for that account and not for another, and a run that reads cleaned members too
 *   writes them back as invalid.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashApiKey } from '../../src/accounts/api-keys.ts';
import { createJsonList, type ListServer, startListServer } from '../lists/list-server.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let server: ListServer;
let mine: string;
let theirs: string;

before(async () => {
  emulator = await startMailchimpEmulator();
  emulator.batchStepMs = 1;
  server = await startListServer({
    MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    MAILVET_RUN_POLL_MS: '100',
  });
  // Each key is an account of its own.
  mine = await server.key({ quota: 100_000 });
  theirs = await server.key({ quota: 100_000 });
});
after(async () => {
  await server?.close();
  await emulator?.close();
});

const api = (method: string, path: string, body?: unknown, apiKey = mine) =>
  server.call(apiKey, method, path, body);

async function accountIdOf(apiKey: string): Promise<string> {
  const found = await server.server.store.findApiKeyByHash(hashApiKey(apiKey));
  assert.ok(found);
  return found.account.id;
}

async function verdict(email: string, apiKey: string): Promise<{ status: string; reason: string }> {
  const response = await api('POST', '/verify', { email }, apiKey);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return { status: response.body.status, reason: response.body.reason };
}

/** Polls the run until it ends (a hang guard, not a timing assertion). */
async function ended(integrationId: string, runId: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = await api('GET', `/integrations/${integrationId}/runs/${runId}`);
    assert.equal(run.status, 200);
    if (['completed', 'failed', 'cancelled'].includes(run.body.state)) return run.body;
    if (Date.now() > deadline) throw new Error(`run still ${run.body.state}: ${JSON.stringify(run.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('bounced in list jobs', () => {
  it("gives `bounced` in the reporting account's list, and not in another account's", async () => {
    const reported = await api('POST', '/feedback', {
      email: 'alice@accept.test',
      event: 'hard_bounce',
      at: '2026-08-01T00:00:00Z',
    });
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const emails = ['alice@accept.test', 'bob@accept.test', 'ALICE@accept.test'];
    const reasons = async (apiKey: string) => {
      const created = await createJsonList(server, apiKey, { name: 'bounces', emails });
      await server.waitFor(apiKey, created.id, (list) => list.state === 'completed');
      const response = await server.api(apiKey, `/lists/${created.id}/results?format=json`);
      const rows = (await response.json()) as Array<{ result: { status: string; reason: string } }>;
      return rows.map((row) => `${row.result.status} ${row.result.reason}`);
    };
    assert.deepEqual(await reasons(mine), ['INVALID bounced', 'VALID mailbox_confirmed', 'INVALID bounced']);
    assert.deepEqual(await reasons(theirs), [
      'VALID mailbox_confirmed',
      'VALID mailbox_confirmed',
      'VALID mailbox_confirmed',
    ]);
  });
});

describe('Mailchimp cleaned members', () => {
  it('are recorded as hard bounces by each run, once, and verify as bounced for that account only', async () => {
    const account = emulator.addAccount({ name: 'Bounces Inc' });
    const audience = emulator.addAudience(account, { name: 'Newsletter' });
    emulator.addMember(audience, { email: 'carol@accept.test', status: 'subscribed' });
    emulator.addMember(audience, {
      email: 'dave@accept.test',
      status: 'cleaned',
      lastChanged: new Date('2026-06-01T00:00:00Z'),
    });
    emulator.addMember(audience, {
      email: 'Erin@Accept.test',
      status: 'cleaned',
      lastChanged: new Date('2026-07-01T12:34:56Z'),
    });
    const connected = await api('POST', '/integrations', { provider: 'mailchimp', api_key: account.apiKey });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const integrationId = connected.body.id as string;
    const accountId = await accountIdOf(mine);
    const storedBefore = await server.server.store.feedback.countEvents(accountId);

    // Before any run: Mailchimp's cleaning is not known here.
    assert.equal((await verdict('dave@accept.test', mine)).reason, 'mailbox_confirmed');

    const first = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: audience.id });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const run = await ended(integrationId, first.body.id);
    assert.equal(run.state, 'completed', JSON.stringify(run));
    assert.equal(run.counts.members, 1, 'the run verifies the subscribed members it was asked for');
    assert.equal(await server.server.store.feedback.countEvents(accountId), storedBefore + 2);

    // Recorded at Mailchimp's change time: the same report again is a duplicate.
    const same = await api('POST', '/feedback', {
      email: 'dave@accept.test',
      event: 'hard_bounce',
      at: '2026-06-01T00:00:00Z',
    });
    assert.deepEqual(same.body, { recorded: 0, duplicates: 1 });

    assert.deepEqual(await verdict('dave@accept.test', mine), { status: 'INVALID', reason: 'bounced' });
    assert.deepEqual(await verdict('erin@accept.test', mine), { status: 'INVALID', reason: 'bounced' });
    assert.deepEqual(await verdict('carol@accept.test', mine), {
      status: 'VALID',
      reason: 'mailbox_confirmed',
    });
    assert.deepEqual(await verdict('dave@accept.test', theirs), {
      status: 'VALID',
      reason: 'mailbox_confirmed',
    });

    // A second run reading the cleaned members too: nothing recorded twice, and they go back invalid.
    const second = await api('POST', `/integrations/${integrationId}/runs`, {
      audience_id: audience.id,
      statuses: ['subscribed', 'cleaned'],
    });
    assert.equal(second.status, 202, JSON.stringify(second.body));
    const rerun = await ended(integrationId, second.body.id);
    assert.equal(rerun.state, 'completed', JSON.stringify(rerun));
    assert.equal(rerun.counts.members, 3);
    assert.equal(rerun.counts.invalid, 2);
    assert.equal(rerun.counts.valid, 1);
    assert.equal(await server.server.store.feedback.countEvents(accountId), storedBefore + 2);
    assert.deepEqual(emulator.member(audience, 'dave@accept.test')!.tags, ['mailvet-invalid']);
    assert.equal(emulator.member(audience, 'dave@accept.test')!.mergeFields.MV_STATUS, 'INVALID');
    assert.equal(await server.server.store.feedback.countEvents(await accountIdOf(theirs)), 0);
  });
});

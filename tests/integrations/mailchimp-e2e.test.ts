/**
 * A whole audience, end to end on the real server (store, queue, in-process worker, SMTP probe on)
 * over the mail world and the Mailchimp emulator: 5,000 members across the world's behaviours
 * (known and unknown mailboxes, catch-all, greylisted, disposable, role, a dead domain) plus
 * unsubscribed members, validated with write-back while Mailchimp answers bursts of 429 and 500.
 * Every subscribed member's fields and tag are checked against its own result; unsubscribed ones
 * are untouched; nothing is deleted; the quota is charged exactly the unique subscribed addresses;
 * never more than 10 requests in flight.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { categoryOf } from '../../src/integrations/categories.ts';
import { CATEGORY_TAGS } from '../../src/integrations/mailchimp/write-back.ts';
import { monthOf } from '../../src/usage/months.ts';
import type { Status } from '../../src/verification/report.ts';
import { usageOfKey } from '../helpers/usage.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { type MailchimpEmulator, startMailchimpEmulator } from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let server: ListServer;
let scratch: string;

before(async () => {
  emulator = await startMailchimpEmulator();
  emulator.batchStepMs = 1;
  // The operator's deny list makes one of the world's domains disposable.
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-e2e-'));
  await writeFile(join(scratch, 'deny.txt'), 'slowbanner.test\n');
  server = await startListServer({
    MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    MAILVET_RUN_POLL_MS: '100',
    MAILVET_DISPOSABLE_DENY_FILE: join(scratch, 'deny.txt'),
  });
});
after(async () => {
  await server?.close();
  await emulator?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The audience: [address, subscribed?] — 5,000 members, 4,600 of them subscribed. */
function audienceMembers(): Array<{ email: string; subscribed: boolean }> {
  const members: Array<{ email: string; subscribed: boolean }> = [];
  const add = (count: number, make: (i: number) => string, subscribed = true) => {
    for (let i = 1; i <= count; i++) members.push({ email: make(i), subscribed });
  };
  add(100, (i) => `user${i}@accept.test`); // known mailboxes
  add(900, (i) => `nobody${i}@accept.test`); // unknown mailboxes
  add(2400, (i) => `anyone${i}@catchall.test`); // catch-all
  add(50, (i) => `user${i}@greylist.test`); // greylisted, then accepted
  add(100, (i) => `user${i}@slowbanner.test`); // disposable (the operator's list)
  add(
    4,
    (i) => `${['info', 'sales', 'support', 'postmaster'][i - 1]}@${i === 4 ? 'accept' : 'catchall'}.test`,
  ); // role
  add(296, (i) => `someone${i}@dead-domain-${i}.test`); // NXDOMAIN
  add(400, (i) => `lapsed${i}@catchall.test`, false); // unsubscribed
  add(100, (i) => `gone${i}@accept.test`, false);
  // The rest of the 5,000: more catch-all subscribers.
  add(5000 - members.length, (i) => `late${i}@catchall.test`);
  return members;
}

test('a 5,000-member audience is read, verified and written back exactly, through 429 and 500 bursts', async () => {
  const key = await server.key({ quota: 100_000, name: 'e2e' });
  const account = emulator.addAccount({ name: 'Big Shop' });
  const audience = emulator.addAudience(account, { name: 'Everyone' });
  const members = audienceMembers();
  assert.equal(members.length, 5000);
  for (const member of members) {
    emulator.addMember(audience, {
      email: member.email,
      status: member.subscribed ? 'subscribed' : 'unsubscribed',
    });
  }
  const subscribed = members.filter((member) => member.subscribed);

  const api = (method: string, path: string, body?: unknown) => server.call(key, method, path, body);
  const connected = await api('POST', '/integrations', { provider: 'mailchimp', api_key: account.apiKey });
  assert.equal(connected.status, 201);
  const integrationId = connected.body.id as string;

  emulator.resetStats(account);
  // Bursts of refusals while it reads: retried with backoff (and Retry-After), never fatal.
  emulator.injectFaults(account, { status: 429, count: 3, retryAfterSeconds: 1 });
  const started = await api('POST', `/integrations/${integrationId}/runs`, {
    audience_id: audience.id,
    write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  let injectedServerErrors = false;
  let run: {
    state: string;
    list_id: string;
    message: string | null;
    counts: Record<string, number>;
  };
  const deadline = Date.now() + 300_000;
  for (;;) {
    run = (await api('GET', `/integrations/${integrationId}/runs/${started.body.id}`)).body;
    if (run.state === 'verifying' && !injectedServerErrors) {
      // 500s for the write phase's first requests.
      emulator.injectFaults(account, { status: 500, count: 2 });
      injectedServerErrors = true;
    }
    if (['completed', 'failed', 'cancelled'].includes(run.state)) break;
    assert.ok(Date.now() < deadline, `hang guard: ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(run.state, 'completed', JSON.stringify(run));
  assert.equal(run.counts.members, subscribed.length);
  assert.equal(run.counts.verified, subscribed.length);
  assert.equal(run.counts.written, subscribed.length);
  assert.equal(run.counts.write_errors, 0);

  // Each subscribed member carries its own result: the status, the score, the day, one tag.
  const rows = (await (await server.api(key, `/lists/${run.list_id}/results?format=json`)).json()) as Array<{
    email: string;
    result: { status: Status; score: number } | null;
  }>;
  assert.equal(rows.length, subscribed.length);
  const byStatus: Record<string, number> = {};
  for (const row of rows) {
    assert.ok(row.result !== null, `${row.email} has a result`);
    byStatus[row.result.status] = (byStatus[row.result.status] ?? 0) + 1;
    const member = emulator.member(audience, row.email)!;
    assert.equal(member.mergeFields.MV_STATUS, row.result.status, row.email);
    assert.equal(member.mergeFields.MV_SCORE, row.result.score, row.email);
    assert.match(String(member.mergeFields.MV_CHECKED), /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(member.tags, [CATEGORY_TAGS[categoryOf(row.result.status)]], row.email);
    assert.equal(member.status, 'subscribed');
  }
  // The world's behaviours came out as they should.
  const statusOf = (email: string) => rows.find((row) => row.email === email)?.result?.status;
  assert.equal(statusOf('user7@accept.test'), 'VALID');
  assert.equal(statusOf('nobody7@accept.test'), 'INVALID');
  assert.equal(statusOf('anyone7@catchall.test'), 'PROBABLY_VALID');
  assert.equal(statusOf('user7@greylist.test'), 'VALID', 'greylisted, checked again, accepted');
  assert.equal(statusOf('postmaster@accept.test'), 'ROLE_BASED');
  assert.equal(statusOf('info@catchall.test'), 'ROLE_BASED');
  assert.equal(statusOf('user7@slowbanner.test'), 'DISPOSABLE');
  assert.equal(statusOf('someone7@dead-domain-7.test'), 'INVALID_DOMAIN');
  assert.deepEqual(
    { valid: run.counts.valid, risky: run.counts.risky, invalid: run.counts.invalid },
    {
      valid: byStatus.VALID ?? 0,
      risky: (byStatus.PROBABLY_VALID ?? 0) + (byStatus.ROLE_BASED ?? 0) + (byStatus.DISPOSABLE ?? 0),
      invalid:
        subscribed.length -
        (byStatus.VALID ?? 0) -
        (byStatus.PROBABLY_VALID ?? 0) -
        (byStatus.ROLE_BASED ?? 0) -
        (byStatus.DISPOSABLE ?? 0),
    },
  );

  // Unsubscribed members untouched; nothing deleted or archived.
  for (const member of members.filter((each) => !each.subscribed)) {
    const found = emulator.member(audience, member.email)!;
    assert.equal(found.status, 'unsubscribed');
    assert.equal(found.mergeFields.MV_STATUS, undefined);
    assert.deepEqual(found.tags, []);
  }
  assert.deepEqual(emulator.destructiveCalls(account), []);

  // Limits: 10 in flight at most, reads of 1,000 a page, writes in a few batches.
  const stats = emulator.stats(account);
  assert.ok(stats.maxInFlight <= 10, `max in flight ${stats.maxInFlight}`);
  assert.equal(stats.byRoute['POST /batches'], 2, '4,600 members in batches of 2,500');
  assert.ok(stats.requests <= 40, `${stats.requests} requests: ${JSON.stringify(stats.byRoute)}`);

  // The quota: each unique subscribed address once.
  const keyRecord = (await server.server.store.listApiKeys()).find((record) => record.name === 'e2e')!;
  assert.equal(
    (await usageOfKey(server.server.store, keyRecord.id, monthOf(new Date()))).verifications,
    subscribed.length,
  );
});

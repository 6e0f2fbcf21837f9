/**
 * The Mailchimp session against the emulator: members read 1,000 a page with only the fields a
 * run needs, by status and change time; write-back preparation creates the three merge fields and
 * the three score segments once, and the segments hold exactly their bands (their bounds included).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MemoryInFlightLimiter } from '../../src/adapters/integrations/memory-in-flight.ts';
import { MailchimpProvider } from '../../src/integrations/mailchimp/provider.ts';
import type { ProviderSession } from '../../src/integrations/ports.ts';
import {
  type EmulatedAccount,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

let emulator: MailchimpEmulator;
let account: EmulatedAccount;
let session: ProviderSession;

before(async () => {
  emulator = await startMailchimpEmulator();
  account = emulator.addAccount({ dc: 'us21' });
  const provider = new MailchimpProvider({
    baseUrlTemplate: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    limiter: new MemoryInFlightLimiter(),
    fetch,
  });
  session = provider.session({ kind: 'api_key', secret: account.apiKey, dc: 'us21' }, 'test');
});
after(() => emulator?.close());

test('members: 1,000 a page, one status, only the needed fields, and those changed since a time', async () => {
  const audience = emulator.addAudience(account, { name: 'Big' });
  emulator.addMergeField(audience, { tag: 'MV_CHECKED', name: 'Checked', type: 'date' });
  const old = new Date('2026-01-01T00:00:00Z');
  for (let i = 0; i < 2_300; i++) {
    emulator.addMember(audience, {
      email: `Person${i}@Example.com`,
      status: i % 10 === 0 ? 'unsubscribed' : 'subscribed',
      lastChanged: i < 2_000 ? old : new Date('2026-11-01T00:00:00Z'),
      ...(i === 1 && { mergeFields: { MV_CHECKED: '2026-10-02' } }),
    });
  }
  emulator.resetStats(account);
  const read = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await session.members(audience.id, { statuses: ['subscribed'], offset, count: 1000 });
    assert.equal(page.total, 2_070);
    read.push(...page.members);
    if (page.members.length < 1000) break;
  }
  assert.equal(read.length, 2_070);
  assert.equal(emulator.stats(account).requests, 3, 'three pages');
  assert.ok(read.every((member) => member.status === 'subscribed'));
  const second = read.find((member) => member.email === 'Person1@Example.com')!;
  assert.equal(second.id, createHash('md5').update('person1@example.com').digest('hex'));
  assert.equal(second.checkedOn, '2026-10-02');
  assert.equal(read.find((member) => member.email === 'Person2@Example.com')?.checkedOn, null);

  const changed = await session.members(audience.id, {
    statuses: ['subscribed'],
    changedSince: '2026-06-01T00:00:00Z',
    offset: 0,
    count: 1000,
  });
  assert.equal(changed.total, 270);
  await assert.rejects(
    session.members(audience.id, { statuses: ['subscribed', 'cleaned'], offset: 0, count: 10 }),
  );
});

test('write-back preparation: three merge fields and three score segments, made once, holding their bands', async () => {
  const audience = emulator.addAudience(account, { name: 'Scored' });
  await session.prepareWriteBack(audience.id, {
    fields: true,
    tags: true,
    segments: true,
    unsubscribeInvalid: false,
  });
  const fields = emulator.mergeFields(audience).filter((field) => field.tag.startsWith('MV_'));
  assert.deepEqual(fields.map((field) => [field.tag, field.type]).sort(), [
    ['MV_CHECKED', 'date'],
    ['MV_SCORE', 'number'],
    ['MV_STATUS', 'text'],
  ]);
  for (const score of [0, 49, 50, 79, 80, 100]) {
    emulator.addMember(audience, { email: `s${score}@example.com`, mergeFields: { MV_SCORE: score } });
  }
  const bands = Object.fromEntries(
    emulator.segments(audience).map((segment) => [segment.name, [...segment.memberEmails].sort()]),
  );
  assert.deepEqual(bands, {
    'Mailvet score 80-100': ['s100@example.com', 's80@example.com'],
    'Mailvet score 50-79': ['s50@example.com', 's79@example.com'],
    'Mailvet score 0-49': ['s0@example.com', 's49@example.com'],
  });

  emulator.resetStats(account);
  await session.prepareWriteBack(audience.id, {
    fields: true,
    tags: true,
    segments: true,
    unsubscribeInvalid: false,
  });
  assert.equal(emulator.stats(account).requests, 2, 'a second preparation only looks');
  assert.equal(emulator.segments(audience).length, 3);
  assert.equal(emulator.mergeFields(audience).filter((field) => field.tag.startsWith('MV_')).length, 3);
});

test('write-back preparation survives a lost answer: a create that worked is not made twice, nor an error', async () => {
  const audience = emulator.addAudience(account, { name: 'Lost answers' });
  const impatient = new MailchimpProvider({
    baseUrlTemplate: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
    limiter: new MemoryInFlightLimiter(),
    fetch,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  }).session({ kind: 'api_key', secret: account.apiKey, dc: 'us21' }, 'test');
  // The first merge field's and the first segment's creations are made, then their answers lost:
  // Mailchimp would refuse a second merge field of the tag, but would make a second segment of
  // the name, so the client asks whether the thing exists before it tries again.
  emulator.injectFaults(account, { status: 500, count: 1, method: 'POST', afterHandling: true });
  await impatient.prepareWriteBack(audience.id, {
    fields: true,
    tags: false,
    segments: false,
    unsubscribeInvalid: false,
  });
  emulator.injectFaults(account, { status: 503, count: 1, method: 'POST', afterHandling: true });
  await impatient.prepareWriteBack(audience.id, {
    fields: true,
    tags: false,
    segments: true,
    unsubscribeInvalid: false,
  });
  assert.deepEqual(
    emulator
      .mergeFields(audience)
      .map((field) => field.tag)
      .filter((tag) => tag.startsWith('MV_'))
      .sort(),
    ['MV_CHECKED', 'MV_SCORE', 'MV_STATUS'],
  );
  assert.deepEqual(
    emulator
      .segments(audience)
      .map((segment) => segment.name)
      .sort(),
    ['Mailvet score 0-49', 'Mailvet score 50-79', 'Mailvet score 80-100'],
  );
});

/** Polls the job until Mailchimp has finished it. */
async function finished(jobId: string) {
  for (let i = 0; i < 200; i++) {
    const outcome = await session.writeOutcome(jobId);
    if (outcome !== null) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`batch ${jobId} did not finish`);
}

test('write-back in one batch: fields, exactly one active category tag, unsubscribe only when asked', async () => {
  const audience = emulator.addAudience(account, { name: 'Written' });
  const options = { fields: true, tags: true, segments: false, unsubscribeInvalid: false };
  await session.prepareWriteBack(audience.id, options);
  const hash = (email: string) => createHash('md5').update(email).digest('hex');
  emulator.addMember(audience, { email: 'good@example.com', tags: ['mailvet-invalid', 'vip'] });
  emulator.addMember(audience, { email: 'role@example.com' });
  emulator.addMember(audience, { email: 'gone@example.com' });
  emulator.addMember(audience, { email: 'untouched@example.com', tags: ['vip'] });
  const results = [
    { memberId: hash('good@example.com'), status: 'VALID' as const, score: 95, checkedOn: '2026-11-26' },
    { memberId: hash('role@example.com'), status: 'ROLE_BASED' as const, score: 60, checkedOn: '2026-11-26' },
    { memberId: hash('gone@example.com'), status: 'INVALID' as const, score: 5, checkedOn: '2026-11-26' },
    { memberId: hash('nobody@example.com'), status: 'VALID' as const, score: 90, checkedOn: '2026-11-26' },
  ];
  emulator.resetStats(account);
  const outcome = await finished(await session.submitWrites(audience.id, results, options));
  assert.equal(outcome.written, 3);
  assert.deepEqual(
    outcome.errors.map((error) => error.memberId),
    [hash('nobody@example.com')],
  );
  assert.match(outcome.errors[0]!.message, /^404/);

  const member = (email: string) => emulator.member(audience, email)!;
  assert.deepEqual(member('good@example.com').mergeFields, {
    ...member('good@example.com').mergeFields,
    MV_STATUS: 'VALID',
    MV_SCORE: 95,
    MV_CHECKED: '2026-11-26',
  });
  assert.deepEqual([...member('good@example.com').tags].sort(), ['mailvet-valid', 'vip']);
  assert.deepEqual(member('role@example.com').tags, ['mailvet-risky']);
  assert.deepEqual(member('gone@example.com').tags, ['mailvet-invalid']);
  assert.equal(member('gone@example.com').status, 'subscribed', 'not unsubscribed unless asked');
  assert.deepEqual(member('untouched@example.com').tags, ['vip']);
  assert.equal(member('untouched@example.com').mergeFields.MV_STATUS ?? '', '');
  assert.ok(emulator.stats(account).requests <= 6, `${emulator.stats(account).requests} requests`);
  assert.deepEqual(emulator.destructiveCalls(account), []);

  const unsubscribing = { ...options, fields: false, tags: false, unsubscribeInvalid: true };
  await finished(await session.submitWrites(audience.id, results.slice(0, 3), unsubscribing));
  assert.equal(member('gone@example.com').status, 'unsubscribed');
  assert.equal(member('good@example.com').status, 'subscribed');
  assert.equal(member('role@example.com').status, 'subscribed');
  assert.deepEqual(emulator.destructiveCalls(account), [], 'never deleted or archived');
});

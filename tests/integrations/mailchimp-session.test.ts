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

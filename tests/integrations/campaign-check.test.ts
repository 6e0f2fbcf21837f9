/**
 * The pre-campaign check over the real app (SQLite) and the Mailchimp emulator:
 * recipients counted by the category of their MV_STATUS, for a campaign to a whole audience, to a
 * tag, to a saved segment and to conditions of its own (read through a temporary segment that does
 * not stay); unverified ones verified in the test mail world (offline), charged once each and
 * written back in one batch; a quota running out midway said so; `exclude` narrowing the campaign to
 * a segment without the invalid (or risky) ones, reused by a second check; nothing changed without
 * it. A sent or scheduled campaign is a 409, an unknown one a 422, another account's integration a
 * 404, a revoked key a 409 integration_disconnected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type EmulatedCampaign,
  type MailchimpEmulator,
  type MemberSeed,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';
import { basicRequest } from '../mailchimp/test-client.ts';

let emulator: MailchimpEmulator;
let t: TestApp;
let shop: EmulatedAccount;
let integrationId: string;

before(async () => {
  emulator = await startMailchimpEmulator();
  t = await testApp({
    rate: 1000,
    env: { MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, '') },
  });
  shop = emulator.addAccount({ name: 'Checked Shop' });
  integrationId = (await connect(shop)).id;
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

const api = (method: string, url: string, payload?: unknown, key = t.key) =>
  t.app.inject({
    method: method as 'POST',
    url: `/api/v1${url}`,
    headers: t.auth(key),
    ...(payload !== undefined && { payload: payload as object }),
  });

async function connect(account: EmulatedAccount, key = t.key): Promise<{ id: string }> {
  const response = await api(
    'POST',
    '/integrations',
    { provider: 'mailchimp', api_key: account.apiKey },
    key,
  );
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

function check(body: Record<string, unknown>, integration = integrationId, key = t.key) {
  return api('POST', `/integrations/${integration}/campaign-checks`, body, key);
}

/** Members already verified (MV_STATUS written back by an earlier run) and ones never verified. */
const VERIFIED: MemberSeed[] = [
  { email: 'ann@example.com', mergeFields: { MV_STATUS: 'VALID' }, tags: ['mailvet-valid', 'vip'] },
  { email: 'bob@example.com', mergeFields: { MV_STATUS: 'VALID' }, tags: ['mailvet-valid'] },
  { email: 'cat@example.com', mergeFields: { MV_STATUS: 'ROLE_BASED' }, tags: ['mailvet-risky', 'vip'] },
  { email: 'dan@example.com', mergeFields: { MV_STATUS: 'INVALID' }, tags: ['mailvet-invalid', 'vip'] },
];
/** Never verified: the DNS world makes the bench ones risky (PROBABLY_VALID) and null-MX ones invalid. */
const UNVERIFIED: MemberSeed[] = [
  { email: 'u1@d1.bench.test', tags: ['vip'] },
  { email: 'u2@d2.bench.test' },
  { email: 'gone@nullmx.test' },
];

/** An audience with Mailvet's merge fields, the members given, and one unsubscribed member. */
function seedAudience(account: EmulatedAccount, name: string, members: MemberSeed[]): EmulatedAudience {
  const audience = emulator.addAudience(account, { name });
  emulator.addMergeField(audience, { tag: 'MV_STATUS', name: 'Mailvet status', type: 'text' });
  emulator.addMergeField(audience, { tag: 'MV_SCORE', name: 'Mailvet score', type: 'number' });
  emulator.addMergeField(audience, { tag: 'MV_CHECKED', name: 'Mailvet checked', type: 'date' });
  for (const member of members) emulator.addMember(audience, member);
  emulator.addMember(audience, { email: 'left@example.com', status: 'unsubscribed' });
  return audience;
}

/** Everything a check could change in the emulator. */
function state(audience: EmulatedAudience, campaign: EmulatedCampaign): string {
  return JSON.stringify({
    members: emulator.members(audience),
    segments: emulator.segments(audience),
    campaign: emulator.campaign(campaign),
  });
}

const tagId = (audience: EmulatedAudience, name: string) =>
  emulator.segments(audience).find((segment) => segment.name === name)?.id;

describe('counting recipients by category', () => {
  test('a campaign to the whole audience: its subscribed members by MV_STATUS; nothing in Mailchimp changes', async () => {
    const audience = seedAudience(shop, 'Everyone', [...VERIFIED, ...UNVERIFIED]);
    const campaign = emulator.addCampaign(shop, { audience, title: 'Spring sale' });
    const before = state(audience, campaign);
    const usage = await t.accountUsage();
    const response = await check({ campaign_id: campaign.id, verify_unverified: false });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      campaign_id: campaign.id,
      title: 'Spring sale',
      audience_id: audience.id,
      recipients: 7,
      by_category: { valid: 2, risky: 1, invalid: 1, unverified: 3 },
      verified: 0,
      excluded: null,
      message: null,
    });
    assert.equal(state(audience, campaign), before, 'nothing written, no segment made');
    assert.deepEqual(await t.accountUsage(), usage, 'nothing charged');
  });

  test('segmented campaigns: a tag, a saved segment, and conditions of its own (read through a segment that does not stay)', async () => {
    const audience = seedAudience(shop, 'Segmented', [...VERIFIED, ...UNVERIFIED]);
    const vip = tagId(audience, 'vip');
    const tagged = emulator.addCampaign(shop, { audience, title: 'VIP only', savedSegmentId: vip });
    const byTag = await check({ campaign_id: tagged.id, verify_unverified: false });
    assert.equal(byTag.statusCode, 200, byTag.body);
    assert.equal(byTag.json().recipients, 4);
    assert.deepEqual(byTag.json().by_category, { valid: 1, risky: 1, invalid: 1, unverified: 1 });

    const condition = { condition_type: 'TextMerge', field: 'MV_STATUS', op: 'is', value: 'VALID' };
    const saved = await basicRequest(emulator.baseUrl(shop), shop.apiKey, `/lists/${audience.id}/segments`, {
      method: 'POST',
      body: { name: 'Valid ones', options: { match: 'all', conditions: [condition] } },
    });
    const toSaved = emulator.addCampaign(shop, { audience, title: 'Valid', savedSegmentId: saved.body.id });
    const bySaved = (await check({ campaign_id: toSaved.id, verify_unverified: false })).json();
    assert.deepEqual([bySaved.recipients, bySaved.by_category.valid], [2, 2]);

    const own = emulator.addCampaign(shop, {
      audience,
      title: 'Own conditions',
      segment: { match: 'any', conditions: [condition, { ...condition, value: 'INVALID' }] },
    });
    const before = state(audience, own);
    const byOwn = await check({ campaign_id: own.id, verify_unverified: false });
    assert.equal(byOwn.statusCode, 200, byOwn.body);
    assert.deepEqual(byOwn.json().by_category, { valid: 2, risky: 0, invalid: 1, unverified: 0 });
    assert.equal(state(audience, own), before, 'the temporary segment is gone');
  });
});

describe('verifying the unverified', () => {
  test('verifies them on the quota (once each), writes them back in one batch, counts them in their category', async () => {
    const more = Array.from({ length: 4 }, (_, i) => ({ email: `n${i}@d${i + 10}.bench.test` }));
    const audience = seedAudience(shop, 'To verify', [...VERIFIED, ...UNVERIFIED, ...more]);
    const campaign = emulator.addCampaign(shop, { audience, title: 'Launch' });
    const usage = (await t.accountUsage()).verifications;
    emulator.resetStats(shop);
    const response = await check({ campaign_id: campaign.id });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.verified, 7);
    assert.deepEqual(body.by_category, { valid: 2, risky: 1 + 6, invalid: 1 + 1, unverified: 0 });
    assert.equal(body.message, null);
    await t.flushDaily();
    assert.equal((await t.accountUsage()).verifications, usage + 7, 'charged once per address');
    const stats = emulator.stats(shop);
    assert.equal(stats.byRoute['POST /batches'], 1, 'one batch');
    assert.equal(stats.byRoute['PATCH /lists/{list_id}/members/{subscriber_hash}'] ?? 0, 0);
    const gone = emulator.member(audience, 'gone@nullmx.test');
    assert.equal(gone?.mergeFields.MV_STATUS !== undefined, true);
    assert.ok(gone?.tags.includes('mailvet-invalid'), JSON.stringify(gone));
    const risky = emulator.member(audience, 'n0@d10.bench.test');
    assert.equal(risky?.mergeFields.MV_STATUS, 'PROBABLY_VALID');
    assert.ok(risky?.tags.includes('mailvet-risky'));

    const again = (await check({ campaign_id: campaign.id })).json();
    assert.equal(again.verified, 0, 'now all carry MV_STATUS');
    assert.deepEqual(again.by_category, body.by_category);
    assert.equal((await t.accountUsage()).verifications, usage + 7, 'nothing charged twice');
    assert.deepEqual(emulator.destructiveCalls(shop), []);
  });

  test('a quota that runs out midway stops verifying; the rest count as unverified and the answer says so', async () => {
    const tight = await t.addKey({ quota: 2, rate: 1000, name: 'tight' });
    const account = emulator.addAccount({ name: 'Tight Shop' });
    const integration = await connect(account, tight.key);
    const audience = seedAudience(account, 'Many', [
      ...UNVERIFIED,
      { email: 'x1@d21.bench.test' },
      { email: 'x2@d22.bench.test' },
    ]);
    const campaign = emulator.addCampaign(account, { audience, title: 'Too many' });
    const response = await check({ campaign_id: campaign.id }, integration.id, tight.key);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.verified, 2);
    assert.equal(body.by_category.unverified, 3);
    assert.match(body.message, /quota ran out: 3 recipients were left unverified/);
    const written = emulator.members(audience).filter((member) => member.mergeFields.MV_STATUS);
    assert.equal(written.length, 2, 'the two verified ones are written back');
  });
});

describe('leaving out invalid and risky recipients', () => {
  test('exclude invalid: the campaign goes to a saved segment without them; a second check reuses it', async () => {
    const audience = seedAudience(shop, 'Excluding', [...VERIFIED, ...UNVERIFIED]);
    const campaign = emulator.addCampaign(shop, { audience, title: 'Autumn' });
    const response = await check({ campaign_id: campaign.id, exclude: 'invalid' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.recipients, 7);
    assert.deepEqual(body.by_category, { valid: 2, risky: 3, invalid: 2, unverified: 0 });
    assert.equal(body.excluded.segment_name, 'Mailvet: Autumn without invalid');
    assert.equal(body.excluded.members, 5);
    const pointed = emulator.campaign(campaign);
    assert.equal(String(pointed.savedSegmentId), body.excluded.segment_id);
    const segment = emulator.segments(audience).find((each) => String(each.id) === body.excluded.segment_id);
    assert.equal(segment?.type, 'saved', 'kept as conditions, so contacts tagged later are left out too');
    assert.deepEqual(segment?.memberEmails.sort(), [
      'ann@example.com',
      'bob@example.com',
      'cat@example.com',
      'u1@d1.bench.test',
      'u2@d2.bench.test',
    ]);

    const second = await check({ campaign_id: campaign.id, exclude: 'invalid' });
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json().recipients, 5, 'the campaign now leaves them out');
    assert.deepEqual(second.json().excluded, body.excluded, 'the same segment, updated');
    const named = emulator.segments(audience).filter((each) => each.name === body.excluded.segment_name);
    assert.equal(named.length, 1);
    assert.equal(emulator.member(audience, 'dan@example.com')?.status, 'subscribed', 'no contact touched');
    assert.deepEqual(emulator.destructiveCalls(shop), []);
  });

  test('exclude risky on a campaign to a tag keeps the tag as a condition', async () => {
    const audience = seedAudience(shop, 'Tagged risky', [...VERIFIED, ...UNVERIFIED]);
    const vip = tagId(audience, 'vip');
    const campaign = emulator.addCampaign(shop, { audience, title: 'VIP', savedSegmentId: vip });
    const body = (await check({ campaign_id: campaign.id, exclude: 'risky' })).json();
    assert.equal(body.recipients, 4);
    assert.equal(body.excluded.segment_name, 'Mailvet: VIP without risky');
    const segment = emulator.segments(audience).find((each) => String(each.id) === body.excluded.segment_id);
    assert.deepEqual(segment?.memberEmails, ['ann@example.com']);
    assert.equal(body.excluded.members, 1);
  });

  test('conditions where any may hold: a static segment of exactly the recipients kept, reused next time', async () => {
    const audience = seedAudience(shop, 'Any of', [...VERIFIED, ...UNVERIFIED]);
    const is = (value: string) => ({ condition_type: 'TextMerge', field: 'MV_STATUS', op: 'is', value });
    const campaign = emulator.addCampaign(shop, {
      audience,
      title: 'Either',
      segment: { match: 'any', conditions: [is('VALID'), is('INVALID'), is('ROLE_BASED')] },
    });
    const body = (await check({ campaign_id: campaign.id, exclude: 'invalid' })).json();
    assert.equal(body.recipients, 4);
    assert.equal(body.excluded.members, 3);
    const find = () =>
      emulator.segments(audience).find((each) => each.name === 'Mailvet: Either without invalid');
    assert.equal(find()?.type, 'static');
    assert.deepEqual(find()?.memberEmails.sort(), ['ann@example.com', 'bob@example.com', 'cat@example.com']);
    assert.equal(String(emulator.campaign(campaign).savedSegmentId), body.excluded.segment_id);

    // Cat is found invalid meanwhile: checking the campaign (now to that very segment) again takes her out.
    const cat = await basicRequest(
      emulator.baseUrl(shop),
      shop.apiKey,
      `/lists/${audience.id}/members/cat@example.com`,
      { method: 'PATCH', body: { merge_fields: { MV_STATUS: 'INVALID' } } },
    );
    assert.equal(cat.status, 200);
    const again = (await check({ campaign_id: campaign.id, exclude: 'invalid' })).json();
    assert.equal(again.recipients, 3);
    assert.equal(again.by_category.invalid, 1);
    assert.deepEqual(again.excluded, { ...body.excluded, members: 2 }, 'the same static segment');
    assert.deepEqual(find()?.memberEmails.sort(), ['ann@example.com', 'bob@example.com']);

    const risky = (await check({ campaign_id: campaign.id, exclude: 'risky' })).json();
    assert.equal(risky.excluded.segment_name, 'Mailvet: Either without risky');
    assert.equal(risky.excluded.members, 2);
    const named = emulator.segments(audience).filter((each) => each.name.startsWith('Mailvet: Either'));
    assert.equal(named.length, 2);
    assert.deepEqual(emulator.destructiveCalls(shop), []);
  });
});

describe('refusals', () => {
  test('a sent or scheduled campaign is a 409; an unknown one a 422 on campaign_id', async () => {
    const audience = seedAudience(shop, 'Refusals', VERIFIED);
    for (const status of ['sent', 'schedule'] as const) {
      const campaign = emulator.addCampaign(shop, { audience, title: `Already ${status}`, status });
      const response = await check({ campaign_id: campaign.id, exclude: 'invalid' });
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(response.json().code, 'conflict');
      assert.match(response.json().message, /already sent or scheduled/);
      assert.equal(emulator.campaign(campaign).savedSegmentId, undefined);
    }
    const unknown = await check({ campaign_id: 'nope123' });
    assert.equal(unknown.statusCode, 422, unknown.body);
    assert.equal(unknown.json().errors[0].field, 'campaign_id');
    const badExclude = await check({ campaign_id: 'x', exclude: 'everyone' });
    assert.equal(badExclude.statusCode, 422);
  });

  test('a saved segment of the name asked for that cannot hold a fixed list is a 409, and nothing changes', async () => {
    const audience = seedAudience(shop, 'Taken name', VERIFIED);
    const is = (value: string) => ({ condition_type: 'TextMerge', field: 'MV_STATUS', op: 'is', value });
    await basicRequest(emulator.baseUrl(shop), shop.apiKey, `/lists/${audience.id}/segments`, {
      method: 'POST',
      body: { name: 'Mailvet: Taken without invalid', options: { match: 'all', conditions: [is('VALID')] } },
    });
    const campaign = emulator.addCampaign(shop, {
      audience,
      title: 'Taken',
      segment: { match: 'any', conditions: [is('VALID'), is('INVALID')] },
    });
    const response = await check({ campaign_id: campaign.id, exclude: 'invalid' });
    assert.equal(response.statusCode, 409, response.body);
    assert.match(response.json().message, /already exists with conditions/);
    assert.equal(emulator.campaign(campaign).savedSegmentId, undefined);
  });

  test("another account's integration is a 404, even for the right campaign id", async () => {
    const audience = seedAudience(shop, 'Private', VERIFIED);
    const campaign = emulator.addCampaign(shop, { audience, title: 'Private' });
    const stranger = await t.addKey({ rate: 1000, name: 'stranger' });
    const response = await check({ campaign_id: campaign.id }, integrationId, stranger.key);
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(response.json().code, 'not_found');
  });

  test('a key revoked in Mailchimp is a 409 integration_disconnected', async () => {
    const account = emulator.addAccount({ name: 'Revoked Shop' });
    const integration = await connect(account);
    const audience = seedAudience(account, 'Revoked', VERIFIED);
    const campaign = emulator.addCampaign(account, { audience, title: 'Never' });
    emulator.revokeKey(account);
    const response = await check({ campaign_id: campaign.id }, integration.id);
    assert.equal(response.statusCode, 409, response.body);
    assert.equal(response.json().code, 'integration_disconnected');
  });
});

describe('picking a draft, and the last check kept', () => {
  test('GET campaigns: the drafts only, newest first, with their audience and recipient count', async () => {
    const account = emulator.addAccount({ name: 'Drafting Shop' });
    const integration = await connect(account);
    const audience = seedAudience(account, 'Readers', [...VERIFIED, ...UNVERIFIED]);
    const vip = tagId(audience, 'vip');
    const at = (day: number) => new Date(Date.UTC(2026, 10, day, 9));
    // Made newest last, so an answer in the emulator's order would be oldest first.
    const older = emulator.addCampaign(account, { audience, title: 'Older draft', createdAt: at(2) });
    emulator.addCampaign(account, { audience, title: 'Sent already', status: 'sent', createdAt: at(3) });
    emulator.addCampaign(account, { audience, title: 'Scheduled', status: 'schedule', createdAt: at(4) });
    const newer = emulator.addCampaign(account, {
      audience,
      title: 'VIP draft',
      savedSegmentId: vip,
      createdAt: at(5),
    });
    const response = await api('GET', `/integrations/${integration.id}/campaigns`);
    assert.equal(response.statusCode, 200, response.body);
    const { campaigns } = response.json() as { campaigns: Array<Record<string, unknown>> };
    assert.deepEqual(campaigns, [
      {
        id: newer.id,
        title: 'VIP draft',
        audience_id: audience.id,
        audience_name: 'Readers',
        recipient_count: 4,
        created_at: at(5).toISOString(),
      },
      {
        id: older.id,
        title: 'Older draft',
        audience_id: audience.id,
        audience_name: 'Readers',
        recipient_count: 7,
        created_at: at(2).toISOString(),
      },
    ]);

    const stranger = await t.addKey({ rate: 1000, name: 'draft stranger' });
    const theirs = await api('GET', `/integrations/${integration.id}/campaigns`, undefined, stranger.key);
    assert.equal(theirs.statusCode, 404, theirs.body);
    emulator.revokeKey(account);
    const revoked = await api('GET', `/integrations/${integration.id}/campaigns`);
    assert.equal(revoked.statusCode, 409, revoked.body);
    assert.equal(revoked.json().code, 'integration_disconnected');
  });

  test('GET campaign-checks/latest: null until a check, then the last one as it answered, for the owner only', async () => {
    const account = emulator.addAccount({ name: 'Remembering Shop' });
    const integration = await connect(account);
    const latest = (key = t.key) =>
      api('GET', `/integrations/${integration.id}/campaign-checks/latest`, undefined, key);
    assert.deepEqual((await latest()).json(), { last_check: null });

    const audience = seedAudience(account, 'Remembered', VERIFIED);
    const campaign = emulator.addCampaign(account, { audience, title: 'Remember me' });
    const first = await check({ campaign_id: campaign.id, verify_unverified: false }, integration.id);
    assert.equal(first.statusCode, 200, first.body);
    const kept = (await latest()).json();
    assert.deepEqual(kept.last_check.check, first.json());
    assert.equal(kept.last_check.verify_unverified, false);
    assert.ok(!Number.isNaN(Date.parse(kept.last_check.checked_at)));

    // A refused check leaves the last one as it was; the next answered one replaces it.
    const refused = await check({ campaign_id: 'nope123' }, integration.id);
    assert.equal(refused.statusCode, 422);
    assert.deepEqual((await latest()).json(), kept);
    const excluded = await check({ campaign_id: campaign.id, exclude: 'invalid' }, integration.id);
    assert.equal(excluded.statusCode, 200, excluded.body);
    const now = (await latest()).json();
    assert.deepEqual(now.last_check.check, excluded.json());
    assert.equal(now.last_check.check.excluded.segment_name, 'Mailvet: Remember me without invalid');
    assert.equal(now.last_check.verify_unverified, true);

    const stranger = await t.addKey({ rate: 1000, name: 'latest stranger' });
    const theirs = await latest(stranger.key);
    assert.equal(theirs.statusCode, 404, theirs.body);
    assert.equal(theirs.json().code, 'not_found');
  });
});

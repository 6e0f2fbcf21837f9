/**
 * Pins the emulator's documented Mailchimp behaviours over real HTTP, so the integration's tests can
 * trust it: auth, paging and `fields`, filters, merge-field validation, tags, segments, batches (the
 * archive read by the system's `tar`), campaigns, webhooks, OAuth, the 10-connection limit and faults.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EmulatedAccount, type MailchimpEmulator, startMailchimpEmulator } from './emulator.ts';
import { assertProblem, basicRequest, type Json, md5, readArchive, receiver } from './test-client.ts';

const CLIENT = { clientId: '123456789012', clientSecret: 'emulated-client-secret' };
let mc: MailchimpEmulator;

before(async () => {
  mc = await startMailchimpEmulator({ oauth: CLIENT });
});
after(async () => {
  await mc.close();
});

/** A request to the account's API, with its key or the one given. */
function api(
  account: EmulatedAccount,
  path: string,
  init: { method?: string; body?: unknown; key?: string } = {},
) {
  return basicRequest(mc.baseUrl(account), init.key ?? account.apiKey, path, init);
}

/** An account with one audience carrying Mailvet's three merge fields. */
function mailvetAudience(name = 'Newsletter') {
  const account = mc.addAccount({ name: `${name} account` });
  const audience = mc.addAudience(account, { name });
  mc.addMergeField(audience, { tag: 'MV_SCORE', name: 'Mailvet score', type: 'number' });
  mc.addMergeField(audience, { tag: 'MV_STATUS', name: 'Mailvet status', type: 'text' });
  mc.addMergeField(audience, { tag: 'MV_CHECKED', name: 'Mailvet checked', type: 'date' });
  return { account, audience };
}

describe('authentication', () => {
  it('takes Basic auth with any user name and the key as password; answers the account root and ping', async () => {
    const account = mc.addAccount({ name: 'Acme' });
    assert.match(account.apiKey, /^[0-9a-f]{32}-us21$/);
    const root = await api(account, '/');
    assert.equal(root.status, 200);
    assert.equal(root.body.account_id, account.id);
    assert.equal(root.body.account_name, 'Acme');
    assert.equal(typeof root.body.login_id, 'string');
    assert.equal((await api(account, '/ping')).body.health_status, "Everything's Chimpy!");
  });

  it('refuses a missing, unknown, revoked or other-data-centre key with a 401 problem', async () => {
    const account = mc.addAccount({ dc: 'us5' });
    const missing = await fetch(`${mc.baseUrl(account)}/ping`);
    assertProblem(
      { status: missing.status, headers: missing.headers, body: (await missing.json()) as Json },
      401,
      'API Key Missing',
    );
    assertProblem(await api(account, '/ping', { key: `${'0'.repeat(32)}-us5` }), 401, 'API Key Invalid');
    const elsewhere = await fetch(mc.baseUrlTemplate.replace('{dc}', 'us21'), {
      headers: { authorization: `Basic ${Buffer.from(`x:${account.apiKey}`).toString('base64')}` },
    });
    assert.equal(elsewhere.status, 401);
    mc.revokeKey(account);
    assertProblem(await api(account, '/ping'), 401, 'API Key Invalid');
  });
});

describe('lists', () => {
  it('pages with count and offset, reports total_items and projects fields and exclude_fields', async () => {
    const account = mc.addAccount();
    for (const name of ['A', 'B', 'C']) mc.addAudience(account, { name });
    const [first] = [mc.addAudience(account, { name: 'D' })];
    mc.addMember(first, { email: 'one@example.com' });
    mc.addMember(first, { email: 'two@example.com', status: 'unsubscribed' });
    const page = await api(account, '/lists?count=2&offset=3');
    assert.equal(page.body.total_items, 4);
    assert.deepEqual(
      page.body.lists.map((list: Json) => list.name),
      ['D'],
    );
    assert.match(page.body.lists[0].id, /^[0-9a-f]{10}$/);
    assert.equal((await api(account, '/lists')).body.lists.length, 4);
    const narrow = await api(
      account,
      '/lists?fields=lists.id,lists.name,lists.stats.member_count,total_items',
    );
    assert.deepEqual(Object.keys(narrow.body).sort(), ['lists', 'total_items']);
    assert.deepEqual(narrow.body.lists[3], { id: first.id, name: 'D', stats: { member_count: 1 } });
    const without = await api(account, `/lists/${first.id}?exclude_fields=stats,contact`);
    assert.equal(without.body.name, 'D');
    assert.equal(without.body.stats, undefined);
    assertProblem(await api(account, '/lists?count=1001'), 400, 'Invalid Resource');
    assertProblem(await api(account, '/lists/0000000000'), 404, 'Resource Not Found');
  });
});

describe('members', () => {
  it('pages 12 members 10 at a time with total_items, ids as MD5 of the lower-cased address', async () => {
    const { account, audience } = mailvetAudience();
    for (let i = 0; i < 12; i++) mc.addMember(audience, { email: `Person${i}@Example.com` });
    const first = await api(account, `/lists/${audience.id}/members`);
    assert.equal(first.body.members.length, 10);
    assert.equal(first.body.total_items, 12);
    assert.equal(first.body.members[0].id, md5('person0@example.com'));
    assert.equal(first.body.members[0].email_address, 'Person0@Example.com');
    const rest = await api(
      account,
      `/lists/${audience.id}/members?count=1000&offset=10&fields=members.email_address,total_items`,
    );
    assert.deepEqual(rest.body, {
      members: [{ email_address: 'Person10@Example.com' }, { email_address: 'Person11@Example.com' }],
      total_items: 12,
    });
    const byAddress = await api(
      account,
      `/lists/${audience.id}/members/${encodeURIComponent('person3@example.com')}`,
    );
    assert.equal(byAddress.body.id, md5('person3@example.com'));
  });

  it('filters by status and since_last_changed (ISO 8601)', async () => {
    const { account, audience } = mailvetAudience();
    mc.addMember(audience, { email: 'old@example.com', lastChanged: new Date('2024-01-01T00:00:00Z') });
    mc.addMember(audience, { email: 'new@example.com', lastChanged: new Date('2024-06-01T00:00:00Z') });
    mc.addMember(audience, {
      email: 'gone@example.com',
      status: 'unsubscribed',
      lastChanged: new Date('2024-06-02T00:00:00Z'),
    });
    const path = `/lists/${audience.id}/members`;
    const unsubscribed = await api(account, `${path}?status=unsubscribed`);
    assert.deepEqual(
      unsubscribed.body.members.map((m: Json) => m.email_address),
      ['gone@example.com'],
    );
    assert.equal(unsubscribed.body.total_items, 1);
    const since = await api(
      account,
      `${path}?since_last_changed=${encodeURIComponent('2024-03-01T00:00:00+00:00')}`,
    );
    assert.deepEqual(
      since.body.members.map((m: Json) => m.email_address),
      ['new@example.com', 'gone@example.com'],
    );
    assert.equal(since.body.members[0].last_changed, '2024-06-01T00:00:00+00:00');
    const both = await api(account, `${path}?status=subscribed&since_last_changed=2024-03-01T00:00:00Z`);
    assert.equal(both.body.total_items, 1);
    assertProblem(await api(account, `${path}?status=gone`), 400, 'Invalid Resource');
  });

  it('validates merge fields on writes: unknown tag, wrong type and bad dates name the field', async () => {
    const { account, audience } = mailvetAudience();
    const path = `/lists/${audience.id}/members/${md5('a@example.com')}`;
    const put = (mergeFields: Json) =>
      api(account, path, {
        method: 'PUT',
        body: { email_address: 'a@example.com', status_if_new: 'subscribed', merge_fields: mergeFields },
      });
    for (const [fields, field] of [
      [{ MV_SCORE: 'high' }, 'MV_SCORE'],
      [{ NOPE: 'x' }, 'NOPE'],
      [{ MV_CHECKED: '2024-13-40' }, 'MV_CHECKED'],
      [{ MV_CHECKED: 'yesterday' }, 'MV_CHECKED'],
    ] as const) {
      const refused = await put(fields);
      assertProblem(refused, 400, 'Invalid Resource');
      assert.deepEqual(
        refused.body.errors.map((error: Json) => error.field),
        [field],
      );
    }
    const created = await put({ MV_SCORE: 87, MV_STATUS: 'VALID', MV_CHECKED: '2024-05-06' });
    assert.equal(created.status, 200);
    assert.equal(created.body.status, 'subscribed');
    assert.deepEqual(created.body.merge_fields, {
      FNAME: '',
      LNAME: '',
      ADDRESS: '',
      PHONE: '',
      MV_SCORE: 87,
      MV_STATUS: 'VALID',
      MV_CHECKED: '2024-05-06',
    });
    const missingStatus = await api(account, `/lists/${audience.id}/members/${md5('b@example.com')}`, {
      method: 'PUT',
      body: { email_address: 'b@example.com' },
    });
    assertProblem(missingStatus, 400, 'Invalid Resource');
    const patched = await api(account, path, {
      method: 'PATCH',
      body: { status: 'unsubscribed', merge_fields: { MV_SCORE: '12' } },
    });
    assert.equal(patched.body.status, 'unsubscribed');
    assert.equal(patched.body.merge_fields.MV_SCORE, 12);
    assertProblem(
      await api(account, `/lists/${audience.id}/members/${md5('zz@example.com')}`, {
        method: 'PATCH',
        body: { status: 'subscribed' },
      }),
      404,
      'Resource Not Found',
    );
    assert.deepEqual(mc.destructiveCalls(account), []);
    assert.equal((await api(account, path, { method: 'DELETE' })).status, 204);
    assert.equal(mc.member(audience, 'a@example.com')?.status, 'archived');
    assert.deepEqual(
      mc.destructiveCalls(account).map((call) => call.method),
      ['DELETE'],
    );
  });

  it('creates merge fields with valid, unique tags of at most 10 characters', async () => {
    const { account, audience } = mailvetAudience();
    const path = `/lists/${audience.id}/merge-fields`;
    const created = await api(account, path, {
      method: 'POST',
      body: { tag: 'MV_EXTRA', name: 'Extra', type: 'text' },
    });
    assert.equal(created.status, 200);
    assert.equal(created.body.tag, 'MV_EXTRA');
    assert.equal(typeof created.body.merge_id, 'number');
    for (const body of [
      { tag: 'MV_SCORE', name: 'Again', type: 'number' },
      { tag: 'MV_TOO_LONG_TAG', name: 'Long', type: 'text' },
      { tag: 'MV-SCORE', name: 'Dash', type: 'text' },
      { tag: 'MV_X', name: 'Bad type', type: 'float' },
    ]) {
      assertProblem(await api(account, path, { method: 'POST', body }), 400, 'Invalid Resource');
    }
    const listed = await api(account, `${path}?count=100`);
    assert.deepEqual(
      listed.body.merge_fields.map((field: Json) => field.tag),
      ['FNAME', 'LNAME', 'ADDRESS', 'PHONE', 'MV_SCORE', 'MV_STATUS', 'MV_CHECKED', 'MV_EXTRA'],
    );
  });

  it('sets tags active and inactive (204) and lists active ones as [{id, name}]', async () => {
    const { account, audience } = mailvetAudience();
    mc.addMember(audience, { email: 't@example.com', tags: ['mailvet-risky'] });
    const tags = (body: Json) =>
      api(account, `/lists/${audience.id}/members/${md5('t@example.com')}/tags`, { method: 'POST', body });
    const set = await tags({
      tags: [
        { name: 'mailvet-valid', status: 'active' },
        { name: 'mailvet-risky', status: 'inactive' },
      ],
    });
    assert.equal(set.status, 204);
    const member = await api(account, `/lists/${audience.id}/members/${md5('t@example.com')}`);
    assert.equal(member.body.tags_count, 1);
    assert.equal(member.body.tags[0].name, 'mailvet-valid');
    assert.equal(typeof member.body.tags[0].id, 'number');
    assert.deepEqual(mc.member(audience, 't@example.com')?.tags, ['mailvet-valid']);
    assertProblem(await tags({ tags: [{ name: 'x', status: 'on' }] }), 400, 'Invalid Resource');
  });
});

describe('batch member update', () => {
  it('adds and updates up to 500 members, listing per-member errors', async () => {
    const { account, audience } = mailvetAudience();
    mc.addMember(audience, { email: 'known@example.com', mergeFields: { MV_SCORE: 1 } });
    const members = [
      { email_address: 'known@example.com', status: 'subscribed', merge_fields: { MV_SCORE: 90 } },
      { email_address: 'fresh@example.com', status: 'subscribed', merge_fields: { MV_SCORE: 50 } },
      { email_address: 'broken@example.com', status: 'subscribed', merge_fields: { MV_SCORE: 'lots' } },
    ];
    const path = `/lists/${audience.id}`;
    const updated = await api(account, path, { method: 'POST', body: { members, update_existing: true } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.total_created, 1);
    assert.equal(updated.body.total_updated, 1);
    assert.equal(updated.body.error_count, 1);
    assert.equal(updated.body.new_members[0].email_address, 'fresh@example.com');
    assert.equal(updated.body.errors[0].email_address, 'broken@example.com');
    assert.equal(updated.body.errors[0].error_code, 'ERROR_GENERIC');
    assert.equal(updated.body.errors[0].field, 'MV_SCORE');
    assert.equal(mc.member(audience, 'known@example.com')?.mergeFields.MV_SCORE, 90);
    const again = await api(account, path, { method: 'POST', body: { members: members.slice(0, 1) } });
    assert.equal(again.body.errors[0].error_code, 'ERROR_CONTACT_EXISTS');
    const tooMany = Array.from({ length: 501 }, (_, i) => ({
      email_address: `m${i}@example.com`,
      status: 'subscribed',
    }));
    assertProblem(
      await api(account, path, { method: 'POST', body: { members: tooMany } }),
      400,
      'Invalid Resource',
    );
  });
});

describe('segments', () => {
  it('evaluates saved segments on a number merge field (TextMerge greater/less/is), any/all, dates and tags', async () => {
    const { account, audience } = mailvetAudience();
    const scores: [string, number, string][] = [
      ['high@example.com', 95, '2024-05-01'],
      ['mid@example.com', 60, '2024-02-01'],
      ['low@example.com', 10, '2023-12-01'],
      ['edge@example.com', 80, '2024-05-01'],
    ];
    for (const [email, score, checked] of scores)
      mc.addMember(audience, { email, mergeFields: { MV_SCORE: score, MV_CHECKED: checked } });
    mc.addMember(audience, {
      email: 'left@example.com',
      status: 'unsubscribed',
      mergeFields: { MV_SCORE: 99 },
    });
    mc.addMember(audience, { email: 'blank@example.com', tags: ['vip'] });
    const create = (name: string, match: string, conditions: Json[]) =>
      api(account, `/lists/${audience.id}/segments`, {
        method: 'POST',
        body: { name, options: { match, conditions } },
      });
    const score = (op: string, value: number) => ({
      condition_type: 'TextMerge',
      field: 'MV_SCORE',
      op,
      value,
    });
    const members = async (id: number) =>
      (await api(account, `/lists/${audience.id}/segments/${id}/members?count=100`)).body.members
        .map((m: Json) => m.email_address)
        .sort();

    const top = await create('Mailvet score 80-100', 'any', [score('greater', 79)]);
    assert.equal(top.status, 200);
    assert.equal(top.body.type, 'saved');
    assert.equal(top.body.member_count, 2);
    assert.deepEqual(await members(top.body.id), ['edge@example.com', 'high@example.com']);
    const middle = await create('Mailvet score 50-79', 'all', [score('greater', 49), score('less', 80)]);
    assert.deepEqual(await members(middle.body.id), ['mid@example.com']);
    const either = await create('Exactly', 'any', [score('is', 10), score('is', 60)]);
    assert.deepEqual(await members(either.body.id), ['low@example.com', 'mid@example.com']);
    const stale = await create('Stale', 'any', [
      { condition_type: 'DateMerge', field: 'MV_CHECKED', op: 'less', value: '2024-03-01' },
      { condition_type: 'DateMerge', field: 'MV_CHECKED', op: 'blank' },
    ]);
    assert.deepEqual(await members(stale.body.id), [
      'blank@example.com',
      'low@example.com',
      'mid@example.com',
    ]);
    const tag = mc.segments(audience).find((segment) => segment.name === 'vip');
    assert.equal(tag?.type, 'static');
    const tagged = await create('Tagged', 'all', [
      { condition_type: 'StaticSegment', field: 'static_segment', op: 'static_is', value: tag?.id },
    ]);
    assert.deepEqual(await members(tagged.body.id), ['blank@example.com']);
    const listed = await api(account, `/lists/${audience.id}/segments?type=saved&count=100`);
    assert.equal(listed.body.total_items, 5);
    // The documented operators are greater/less: a guessed `greaterthan` must fail loudly.
    const guessed = await create('Guessed', 'any', [score('greaterthan', 79)]);
    assertProblem(guessed, 400, 'Invalid Resource');
    assert.match(guessed.body.errors[0].field, /^options\.conditions\.item:0\.op$/);
  });

  it("updates a saved segment's conditions and a static one's members (batch add/remove ≤ 500), keeping each kind", async () => {
    const { account, audience } = mailvetAudience();
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com'])
      mc.addMember(audience, { email });
    mc.addMember(audience, { email: 'b2@example.com', mergeFields: { MV_STATUS: 'VALID' } });
    const path = `/lists/${audience.id}/segments`;
    const saved = await api(account, path, {
      method: 'POST',
      body: { name: 'Blank', options: { match: 'all', conditions: [] } },
    });
    const condition = { condition_type: 'TextMerge', field: 'MV_STATUS', op: 'is', value: 'VALID' };
    const renamed = await api(account, `${path}/${saved.body.id}`, {
      method: 'PATCH',
      body: { name: 'Valid ones', options: { match: 'all', conditions: [condition] } },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.name, 'Valid ones');
    assert.equal(renamed.body.member_count, 1);
    assertProblem(
      await api(account, `${path}/${saved.body.id}`, {
        method: 'PATCH',
        body: { name: 'x', static_segment: [] },
      }),
      400,
      'Invalid Resource',
    );
    assertProblem(
      await api(account, `${path}/${saved.body.id}`, {
        method: 'POST',
        body: { members_to_add: ['a@example.com'] },
      }),
      400,
      'Invalid Resource',
    );

    const list = await api(account, path, {
      method: 'POST',
      body: { name: 'Picked', static_segment: ['a@example.com', 'b@example.com'] },
    });
    assert.equal(list.body.type, 'static');
    const members = () =>
      mc
        .segments(audience)
        .find((segment) => segment.id === list.body.id)
        ?.memberEmails.sort();
    const replaced = await api(account, `${path}/${list.body.id}`, {
      method: 'PATCH',
      body: { name: 'Picked', static_segment: ['c@example.com', 'nobody@example.com'] },
    });
    assert.equal(replaced.status, 200);
    assert.deepEqual(members(), ['c@example.com'], 'the list replaced; unknown addresses ignored');
    assert.deepEqual(mc.member(audience, 'c@example.com')?.tags, ['Picked'], 'a static segment is a tag');
    const changed = await api(account, `${path}/${list.body.id}`, {
      method: 'POST',
      body: { members_to_add: ['a@example.com', 'nobody@example.com'], members_to_remove: ['c@example.com'] },
    });
    assert.equal(changed.status, 200);
    assert.deepEqual([changed.body.total_added, changed.body.total_removed], [1, 1]);
    assert.deepEqual(changed.body.errors[0].email_addresses, ['nobody@example.com']);
    assert.deepEqual(members(), ['a@example.com']);
    const tooMany = Array.from({ length: 501 }, (_, i) => `x${i}@example.com`);
    assertProblem(
      await api(account, `${path}/${list.body.id}`, { method: 'POST', body: { members_to_add: tooMany } }),
      400,
      'Invalid Resource',
    );
    assertProblem(
      await api(account, `${path}/${list.body.id}`, { method: 'PATCH', body: { name: 'x', options: {} } }),
      400,
      'Invalid Resource',
    );

    assert.equal((await api(account, `${path}/${list.body.id}`, { method: 'DELETE' })).status, 204);
    assert.deepEqual(mc.member(audience, 'a@example.com')?.tags, [], 'the tag is gone, the contact is not');
    assert.equal(mc.member(audience, 'a@example.com')?.status, 'subscribed');
    assert.equal((await api(account, `${path}/${list.body.id}`)).status, 404);
    assert.deepEqual(mc.destructiveCalls(account), []);
  });
});

describe('batch operations', () => {
  it('runs operations asynchronously (pending → finished) and serves a readable gzipped tar of results', async () => {
    const { account, audience } = mailvetAudience();
    const hash = md5('batch@example.com');
    const operations = [
      {
        method: 'PUT',
        path: `/lists/${audience.id}/members/${hash}`,
        operation_id: 'put-1',
        body: JSON.stringify({
          email_address: 'batch@example.com',
          status_if_new: 'subscribed',
          merge_fields: { MV_SCORE: 70 },
        }),
      },
      {
        method: 'PATCH',
        path: `lists/${audience.id}/members/${hash}`,
        operation_id: 'bad-1',
        body: JSON.stringify({ merge_fields: { MV_SCORE: 'x' } }),
      },
      {
        method: 'GET',
        path: `/lists/${audience.id}/members`,
        operation_id: 'get-1',
        params: { fields: 'total_items' },
      },
    ];
    mc.resetStats(account);
    const started = await api(account, '/batches', { method: 'POST', body: { operations } });
    assert.equal(started.status, 200);
    assert.equal(started.body.status, 'pending');
    assert.equal(started.body.total_operations, 3);
    assert.equal(started.body.response_body_url, '');
    let status = started.body;
    for (let polls = 0; status.status !== 'finished'; polls++) {
      assert.ok(polls < 500, 'batch never finished');
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = (await api(account, `/batches/${started.body.id}`)).body;
    }
    assert.equal(status.finished_operations, 3);
    assert.equal(status.errored_operations, 1);
    assert.match(status.completed_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    const download = await fetch(status.response_body_url);
    assert.equal(download.status, 200);
    const { names, results } = await readArchive(Buffer.from(await download.arrayBuffer()));
    assert.ok(
      names.length >= 1 && names.every((name) => name.startsWith(`${started.body.id}/`)),
      names.join(),
    );
    const byId = Object.fromEntries(results.map((result) => [result.operation_id, result]));
    assert.equal(byId['put-1']?.status_code, 200);
    assert.equal(typeof byId['put-1']?.response, 'string');
    assert.equal(JSON.parse(byId['put-1']?.response).merge_fields.MV_SCORE, 70);
    assert.equal(byId['bad-1']?.status_code, 400);
    assert.deepEqual(JSON.parse(byId['get-1']?.response), { total_items: 1 });
    const stats = mc.stats(account);
    assert.equal(stats.batchOperations, 3);
    assert.equal(stats.byRoute['PUT /lists/{list_id}/members/{subscriber_hash}'], undefined);
    assert.equal(stats.byRoute['POST /batches'], 1);
    const malformed = await api(account, '/batches', {
      method: 'POST',
      body: { operations: [{ method: 'PUT', path: '/x', body: { not: 'a string' } }] },
    });
    assertProblem(malformed, 400, 'Invalid Resource');
    assert.equal(malformed.body.errors[0].field, 'operations.item:0.body');
  });
});

describe('campaigns', () => {
  it('reports recipients and narrows them to a saved segment by PATCH, only while a draft', async () => {
    const { account, audience } = mailvetAudience();
    for (const [email, score] of [
      ['a@example.com', 90],
      ['b@example.com', 20],
      ['c@example.com', 85],
    ] as const) {
      mc.addMember(audience, { email, mergeFields: { MV_SCORE: score } });
    }
    mc.addMember(audience, { email: 'd@example.com', status: 'unsubscribed' });
    const campaign = mc.addCampaign(account, { audience, title: 'Spring sale' });
    const path = `/campaigns/${campaign.id}`;
    const before = await api(account, path);
    assert.equal(before.body.settings.title, 'Spring sale');
    assert.equal(before.body.status, 'save');
    assert.equal(before.body.recipients.list_id, audience.id);
    assert.equal(before.body.recipients.recipient_count, 3);
    const segment = await api(account, `/lists/${audience.id}/segments`, {
      method: 'POST',
      body: {
        name: 'Good',
        options: {
          match: 'all',
          conditions: [{ condition_type: 'TextMerge', field: 'MV_SCORE', op: 'greater', value: 50 }],
        },
      },
    });
    const recipients = { list_id: audience.id, segment_opts: { saved_segment_id: segment.body.id } };
    assertProblem(
      await api(account, path, { method: 'PATCH', body: { recipients } }),
      400,
      'Invalid Resource',
    );
    const narrowed = await api(account, path, {
      method: 'PATCH',
      body: { recipients, settings: { title: 'Spring sale' } },
    });
    assert.equal(narrowed.status, 200);
    assert.equal(narrowed.body.recipients.segment_opts.saved_segment_id, segment.body.id);
    assert.equal(narrowed.body.recipients.segment_opts.match, 'all');
    assert.equal(narrowed.body.recipients.recipient_count, 2);
    assert.equal(mc.campaign(campaign).savedSegmentId, segment.body.id);
    const sent = mc.addCampaign(account, { audience, title: 'Old', status: 'sent' });
    assertProblem(
      await api(account, `/campaigns/${sent.id}`, { method: 'PATCH', body: { recipients, settings: {} } }),
      400,
      'Bad Request',
    );
  });

  it("keeps a campaign's own conditions, and a tag's segment as its static_is condition", async () => {
    const { account, audience } = mailvetAudience();
    mc.addMember(audience, { email: 'a@example.com', mergeFields: { MV_STATUS: 'VALID' }, tags: ['vip'] });
    mc.addMember(audience, { email: 'b@example.com', mergeFields: { MV_STATUS: 'INVALID' } });
    const condition = { condition_type: 'TextMerge', field: 'MV_STATUS', op: 'is', value: 'VALID' };
    const own = mc.addCampaign(account, {
      audience,
      title: 'Own',
      segment: { match: 'all', conditions: [condition] },
    });
    const read = await api(account, `/campaigns/${own.id}`);
    assert.deepEqual(read.body.recipients.segment_opts, { match: 'all', conditions: [condition] });
    assert.equal(read.body.recipients.recipient_count, 1);
    assert.deepEqual(mc.campaign(own).segment, { match: 'all', conditions: [condition] });
    const vip = mc.segments(audience).find((segment) => segment.name === 'vip');
    const tagged = mc.addCampaign(account, { audience, title: 'Tagged', savedSegmentId: vip?.id });
    const opts = (await api(account, `/campaigns/${tagged.id}`)).body.recipients.segment_opts;
    assert.equal(opts.saved_segment_id, vip?.id);
    assert.deepEqual(opts.conditions, [
      { condition_type: 'StaticSegment', field: 'static_segment', op: 'static_is', value: vip?.id },
    ]);
    const scheduled = mc.addCampaign(account, { audience, title: 'Later', status: 'schedule' });
    assert.equal((await api(account, `/campaigns/${scheduled.id}`)).body.status, 'schedule');
  });
});

describe('webhooks', () => {
  it('checks the URL with a GET, refuses one that does not answer 200, and posts subscribe events form-encoded', async () => {
    const { account, audience } = mailvetAudience();
    const good = await receiver(200);
    const bad = await receiver(404);
    try {
      const path = `/lists/${audience.id}/webhooks`;
      const events = {
        subscribe: true,
        unsubscribe: false,
        profile: false,
        cleaned: false,
        upemail: false,
        campaign: false,
      };
      const sources = { user: true, admin: true, api: false };
      const refused = await api(account, path, { method: 'POST', body: { url: bad.url, events, sources } });
      assertProblem(refused, 400, 'Invalid Resource');
      assert.equal(refused.body.errors[0].field, 'url');
      assert.deepEqual(
        bad.seen.map((request) => request.method),
        ['GET'],
      );
      const created = await api(account, path, { method: 'POST', body: { url: good.url, events, sources } });
      assert.equal(created.status, 200);
      assert.match(created.body.id, /^[0-9a-f]{10}$/);
      assert.deepEqual(created.body.events, events);
      assert.deepEqual(
        good.seen.map((request) => request.method),
        ['GET'],
      );
      assert.equal((await api(account, path)).body.total_items, 1);

      await mc.fireSubscribe(audience, 'New.Person@example.com', { mergeFields: { FNAME: 'New' } });
      const post = good.seen[1];
      assert.equal(post?.method, 'POST');
      assert.equal(post?.contentType, 'application/x-www-form-urlencoded');
      const form = new URLSearchParams(post?.body);
      assert.equal(form.get('type'), 'subscribe');
      assert.match(form.get('fired_at') ?? '', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.equal(form.get('data[email]'), 'New.Person@example.com');
      assert.equal(form.get('data[list_id]'), audience.id);
      assert.equal(form.get('data[merges][EMAIL]'), 'New.Person@example.com');
      assert.equal(form.get('data[merges][FNAME]'), 'New');
      assert.match(form.get('data[id]') ?? '', /^[0-9a-f]{10}$/);
      assert.equal(mc.member(audience, 'new.person@example.com')?.status, 'subscribed');

      // The webhook does not listen to API-made changes: a subscriber added by the API fires nothing.
      await api(account, `/lists/${audience.id}/members`, {
        method: 'POST',
        body: { email_address: 'api@example.com', status: 'subscribed' },
      });
      await mc.idle();
      assert.equal(good.seen.length, 2);
      // Once it listens to the API source, an API-added subscriber fires `subscribe` too.
      const hook = `${path}/${created.body.id}`;
      await api(account, hook, { method: 'PATCH', body: { sources: { api: true } } });
      await api(account, `/lists/${audience.id}/members/${md5('api2@example.com')}`, {
        method: 'PUT',
        body: { email_address: 'api2@example.com', status_if_new: 'subscribed' },
      });
      await mc.idle();
      assert.equal(new URLSearchParams(good.seen[2]?.body).get('data[email]'), 'api2@example.com');
      assert.equal(mc.webhookDeliveries().filter((delivery) => delivery.status === 200).length, 2);
      assert.equal((await api(account, hook, { method: 'DELETE' })).status, 204);
      assert.deepEqual(mc.webhooks(audience), []);
    } finally {
      await good.close();
      await bad.close();
    }
  });
});

describe('OAuth 2', () => {
  it('runs the code flow end to end: authorize, one-time code for a token, metadata, then the API with Bearer', async () => {
    const account = mc.addAccount({ dc: 'us7', name: 'Client Co' });
    mc.oauthLoginAs(account);
    const redirectUri = 'http://127.0.0.1:9/integrations/mailchimp/callback';
    const authorize = `${mc.oauthBase}/authorize?${new URLSearchParams({ response_type: 'code', client_id: CLIENT.clientId, redirect_uri: redirectUri, state: 's-123' })}`;
    const redirect = await fetch(authorize, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const location = new URL(redirect.headers.get('location') ?? '');
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    assert.equal(location.searchParams.get('state'), 's-123');
    const code = location.searchParams.get('code') ?? '';
    const exchange = (secret: string) =>
      fetch(`${mc.oauthBase}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: CLIENT.clientId,
          client_secret: secret,
          redirect_uri: redirectUri,
          code,
        }),
      });
    assert.equal((await exchange('wrong')).status, 401);
    const token = await exchange(CLIENT.clientSecret);
    assert.equal(token.status, 200);
    const grant = (await token.json()) as Json;
    assert.equal(grant.expires_in, 0);
    assert.equal(grant.scope, null);
    assert.equal(((await (await exchange(CLIENT.clientSecret)).json()) as Json).error, 'invalid_grant');
    const metadata = await fetch(`${mc.oauthBase}/metadata`, {
      headers: { authorization: `OAuth ${grant.access_token}` },
    });
    const meta = (await metadata.json()) as Json;
    assert.equal(meta.dc, 'us7');
    assert.equal(meta.accountname, 'Client Co');
    assert.equal(meta.api_endpoint, mc.baseUrlTemplate.replace('{dc}', 'us7').replace(/\/3\.0$/, ''));
    const root = await fetch(`${meta.api_endpoint}/3.0/`, {
      headers: { authorization: `Bearer ${grant.access_token}` },
    });
    assert.equal(((await root.json()) as Json).account_id, account.id);
    const wrongDc = await fetch(`${mc.baseUrlTemplate.replace('{dc}', 'us1')}/`, {
      headers: { authorization: `Bearer ${grant.access_token}` },
    });
    assert.equal(wrongDc.status, 401);
    mc.oauthLoginAs('deny');
    const denied = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '');
    assert.equal(denied.searchParams.get('error'), 'access_denied');
  });
});

describe('limits and faults', () => {
  it('answers the 11th simultaneous request 429 and records the peak in flight', async () => {
    const account = mc.addAccount();
    // Long enough that all 11 overlap even on a busy machine.
    mc.latencyMs = 400;
    try {
      const answers = await Promise.all(Array.from({ length: 11 }, () => api(account, '/ping')));
      const statuses = answers.map((answer) => answer.status).sort();
      assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
      const refused = answers.find((answer) => answer.status === 429);
      assert.equal(refused?.body.title, 'Too Many Requests');
      const stats = mc.stats(account);
      assert.equal(stats.maxInFlight, 11);
      assert.equal(stats.requests, 11);
      assert.equal(stats.byRoute['GET /ping'], 11);
      assert.equal((await api(account, '/ping')).status, 200);
    } finally {
      mc.latencyMs = 0;
    }
  });

  it('injects faults: 429 with Retry-After, then 500 and 503 problems, then normal answers', async () => {
    const account = mc.addAccount();
    mc.injectFaults(account, { status: 429, count: 2, retryAfterSeconds: 3 });
    mc.injectFaults(account, { status: 500, count: 1 });
    mc.injectFaults(account, { status: 503, count: 1 });
    const limited = await api(account, '/lists');
    assertProblem(limited, 429, 'Too Many Requests');
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.equal((await api(account, '/lists')).status, 429);
    assertProblem(await api(account, '/lists'), 500, 'Internal Server Error');
    assert.equal((await api(account, '/lists')).status, 503);
    assert.equal((await api(account, '/lists')).status, 200);
    const other = mc.addAccount();
    assert.equal((await api(other, '/lists')).status, 200);
  });

  it('answers 405 with Allow for a known path, 404 for an unknown one, 400 for a body that is not JSON', async () => {
    const account = mc.addAccount();
    const wrongMethod = await api(account, '/lists', { method: 'DELETE' });
    assertProblem(wrongMethod, 405, 'Method Not Allowed');
    assert.match(wrongMethod.headers.get('allow') ?? '', /GET/);
    assertProblem(await api(account, '/no-such-thing'), 404, 'Resource Not Found');
    const raw = await fetch(`${mc.baseUrl(account)}/lists`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`u:${account.apiKey}`).toString('base64')}` },
      body: '{not json',
    });
    assertProblem(
      { status: raw.status, headers: raw.headers, body: (await raw.json()) as Json },
      400,
      'JSON Parse Error',
    );
  });
});

/**
 * The audit log through the API, on SQLite and on PostgreSQL (when DATABASE_URL names a server;
 * skipped with its reason otherwise, failed under CI): every audited change made with a session or
 * a key is one entry of its account, with the actor, the client address and before/after where
 * settings change; GET /api/v1/audit pages newest first and filters by action; another account's
 * entries never show; and no route changes or deletes an entry. The server listens on loopback
 * (the Mailchimp emulator checks a watch's hook with a GET); requests go over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { schemaFactory } from '../helpers/postgres-schemas.ts';
import { requirePostgres } from '../helpers/services.ts';
import {
  type EmulatedAccount,
  type EmulatedAudience,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };
const PASSWORD = 'correct horse battery';

interface Entry {
  id: string;
  at: string;
  actor: { type: string; id: string; label: string };
  ip: string | null;
  action: string;
  target: { type: string; id: string };
  details: Record<string, unknown>;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whichever fields each answer has.
  body: any;
}

/** Who calls: a key, or a signed-in browser (cookie, CSRF token and Origin on unsafe methods). */
interface SignedIn {
  cookie: string;
  csrf: string;
  userId: string;
  email: string;
}
type Caller = { key: string } | SignedIn;

function auditApiSuite(kind: 'sqlite' | 'postgres', databaseUrl: () => Promise<string | undefined>): void {
  describe(`audit log through the API (${kind})`, () => {
    let emulator: MailchimpEmulator;
    let t: TestApp;
    let origin: string;
    let shop: EmulatedAccount;
    let newsletter: EmulatedAudience;
    let keyCaller: Caller;
    let keyLabel: string;

    before(async () => {
      emulator = await startMailchimpEmulator();
      shop = emulator.addAccount({ name: 'Audited Shop' });
      newsletter = emulator.addAudience(shop, { name: 'Newsletter' });
      emulator.addMember(newsletter, { email: 'reader@example.com' });
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      const url = await databaseUrl();
      t = await testApp({
        plans: PLANS,
        name: 'Audited key',
        env: {
          MAILVET_PUBLIC_URL: origin,
          MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
          // Scale-out asks for the secret every process shares.
          ...(url !== undefined && { DATABASE_URL: url, MAILVET_SECRET_KEY: 'ab'.repeat(32) }),
        },
      });
      await t.app.listen({ port, host: '127.0.0.1' });
      keyCaller = { key: t.key };
      keyLabel = `Audited key (${t.keyRecord.displayPrefix}…)`;
    });
    after(async () => {
      await t?.close();
      await emulator?.close();
    });

    async function call(
      caller: Caller | null,
      method: string,
      path: string,
      body?: unknown,
    ): Promise<Answer> {
      const unsafe = method !== 'GET';
      const headers: Record<string, string> = {
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(caller !== null && 'key' in caller && { authorization: `Bearer ${caller.key}` }),
        ...(caller !== null &&
          'cookie' in caller && {
            cookie: caller.cookie,
            ...(unsafe && { 'x-csrf-token': caller.csrf, origin }),
          }),
      };
      const response = await fetch(`${origin}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const cookie = response.headers
        .getSetCookie()
        .map((line) => line.split(';', 1)[0]!)
        .find((pair) => pair.startsWith('mailvet_session=') && pair !== 'mailvet_session=');
      const parsed = text === '' ? undefined : JSON.parse(text);
      return { status: response.status, body: cookie === undefined ? parsed : { ...parsed, cookie } };
    }

    /** A browser signed in through `path` (`/signup` or `/session`). */
    async function browser(
      path: '/signup' | '/session',
      email: string,
      password = PASSWORD,
    ): Promise<SignedIn> {
      const answer = await call(null, 'POST', path, { email, password });
      assert.equal(answer.status, path === '/signup' ? 201 : 200, JSON.stringify(answer.body));
      const { cookie, csrf_token: csrf, user } = answer.body;
      return { cookie, csrf, userId: user.id, email };
    }

    /** The caller's account's log (one page). */
    async function entries(caller: Caller, query = ''): Promise<Entry[]> {
      const answer = await call(caller, 'GET', `/audit${query}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.entries;
    }

    /** The caller's newest entries, as many as `count`, oldest first: what a test's steps recorded. */
    async function latest(caller: Caller, count: number): Promise<Entry[]> {
      return (await entries(caller, `?limit=${count}`)).reverse();
    }

    const keyActor = () => ({ type: 'key', id: t.keyRecord.id, label: keyLabel });
    const userActor = (caller: SignedIn) => ({ type: 'user', id: caller.userId, label: caller.email });

    test('auth: a sign-up, sign-in, failed sign-in and sign-out are entries of the user’s account', async () => {
      const email = `jane-${kind}@example.com`;
      const first = await browser('/signup', email);
      const accountId = (await call(first, 'GET', '/session')).body.account.id;
      assert.equal(
        (await call(null, 'POST', '/session', { email, password: 'not the password' })).status,
        401,
      );
      // Recorded after the answer (a known address answers in the time of an unknown one).
      for (
        let tries = 0;
        !(await entries(first)).some((entry) => entry.action === 'user.sign_in_failed');
        tries++
      ) {
        assert.ok(tries < 200, 'the failed sign-in is recorded');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const unknown = { email: `nobody-${kind}@example.com`, password: 'not the password' };
      assert.equal((await call(null, 'POST', '/session', unknown)).status, 401);
      const second = await browser('/session', email);
      assert.equal((await call(first, 'DELETE', '/session')).status, 204);

      const user = userActor(first);
      const target = { type: 'user', id: user.id };
      const recorded = await entries(second);
      assert.deepEqual(
        recorded.map(({ id: _id, at: _at, ...rest }) => rest).reverse(),
        [
          {
            actor: user,
            ip: '127.0.0.1',
            action: 'account.created',
            target: { type: 'account', id: accountId },
            details: { name: email, plan: 'free', owner: email },
          },
          {
            actor: user,
            ip: '127.0.0.1',
            action: 'user.sign_in_failed',
            target,
            details: { reason: 'wrong_password' },
          },
          { actor: user, ip: '127.0.0.1', action: 'user.signed_in', target, details: {} },
          { actor: user, ip: '127.0.0.1', action: 'user.signed_out', target, details: {} },
        ],
        'an unknown address records nothing',
      );
      for (const entry of recorded) {
        assert.match(entry.id, /^aud_[0-9a-f]{32}$/);
        assert.ok(Math.abs(Date.parse(entry.at) - Date.now()) < 60_000, 'stamped now');
      }
    });

    test('users: a password change is an entry', async () => {
      const jane = await browser('/signup', `pat-${kind}@example.com`);
      const changed = await call(jane, 'POST', '/account/password', {
        current_password: PASSWORD,
        new_password: 'another long password',
      });
      assert.equal(changed.status, 204, JSON.stringify(changed.body));
      const [entry] = await latest(jane, 1);
      assert.deepEqual(
        [entry!.action, entry!.actor, entry!.target],
        ['user.password_changed', userActor(jane), { type: 'user', id: userActor(jane).id }],
      );
    });

    test('keys: created, changed (before and after) and revoked; a change that changes nothing is none', async () => {
      const jane = await browser('/signup', `keys-${kind}@example.com`);
      const created = await call(jane, 'POST', '/keys', { name: 'CRM sync' });
      assert.equal(created.status, 201);
      const { id, prefix } = created.body;
      assert.equal((await call(jane, 'PATCH', `/keys/${id}`, { rate_limit: 5, name: 'CRM' })).status, 200);
      assert.equal((await call(jane, 'PATCH', `/keys/${id}`, { rate_limit: 5 })).status, 200);
      assert.equal((await call(jane, 'DELETE', `/keys/${id}`)).status, 204);
      assert.equal((await call(jane, 'DELETE', `/keys/${id}`)).status, 204, 'revoking twice');
      const recorded = await latest(jane, 4);
      assert.deepEqual(
        recorded.map((entry) => [entry.action, entry.actor, entry.target, entry.details]),
        [
          [
            'account.created',
            userActor(jane),
            recorded[0]!.target,
            { name: jane.email, plan: 'free', owner: jane.email },
          ],
          [
            'key.created',
            userActor(jane),
            { type: 'key', id },
            { name: 'CRM sync', rate_limit: null, monthly_cap: null, bulk_cap: null, prefix },
          ],
          [
            'key.updated',
            userActor(jane),
            { type: 'key', id },
            { before: { name: 'CRM sync', rate_limit: null }, after: { name: 'CRM', rate_limit: 5 } },
          ],
          ['key.revoked', userActor(jane), { type: 'key', id }, { name: 'CRM', prefix }],
        ],
      );
    });

    test('lists: a deleted list is an entry of the key that deleted it', async () => {
      const made = await call(keyCaller, 'POST', '/lists', {
        name: 'Spring leads',
        emails: ['a@accept.test'],
      });
      assert.equal(made.status, 202, JSON.stringify(made.body));
      assert.equal((await call(keyCaller, 'DELETE', `/lists/${made.body.id}`)).status, 204);
      const [entry] = await latest(keyCaller, 1);
      assert.deepEqual(
        { ...entry, id: undefined, at: undefined },
        {
          id: undefined,
          at: undefined,
          actor: keyActor(),
          ip: '127.0.0.1',
          action: 'list.deleted',
          target: { type: 'list', id: made.body.id },
          details: { name: 'Spring leads', state: 'queued', rows: 1 },
        },
      );
    });

    let integrationId: string;

    test('integrations: connected and disconnected', async () => {
      const old = emulator.addAccount({ name: 'Old Shop', dc: 'us6' });
      const connected = await call(keyCaller, 'POST', '/integrations', {
        provider: 'mailchimp',
        api_key: old.apiKey,
      });
      assert.equal(connected.status, 201, JSON.stringify(connected.body));
      assert.equal((await call(keyCaller, 'DELETE', `/integrations/${connected.body.id}`)).status, 204);
      const kept = await call(keyCaller, 'POST', '/integrations', {
        provider: 'mailchimp',
        api_key: shop.apiKey,
      });
      integrationId = kept.body.id;
      const recorded = await latest(keyCaller, 3);
      const details = { provider: 'mailchimp', account_name: 'Old Shop' };
      assert.deepEqual(
        recorded.map((entry) => [entry.action, entry.actor, entry.target, entry.details]),
        [
          [
            'integration.connected',
            keyActor(),
            { type: 'integration', id: connected.body.id },
            { ...details, with: 'api_key' },
          ],
          ['integration.disconnected', keyActor(), { type: 'integration', id: connected.body.id }, details],
          [
            'integration.connected',
            keyActor(),
            { type: 'integration', id: integrationId },
            { provider: 'mailchimp', account_name: 'Audited Shop', with: 'api_key' },
          ],
        ],
      );
    });

    test('runs: started and cancelled', async () => {
      const started = await call(keyCaller, 'POST', `/integrations/${integrationId}/runs`, {
        audience_id: newsletter.id,
      });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const cancelled = await call(
        keyCaller,
        'POST',
        `/integrations/${integrationId}/runs/${started.body.id}/cancel`,
      );
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      const recorded = await latest(keyCaller, 2);
      assert.deepEqual(
        recorded.map((entry) => [entry.action, entry.actor, entry.target, entry.details]),
        [
          [
            'run.started',
            keyActor(),
            { type: 'run', id: started.body.id },
            {
              integration_id: integrationId,
              audience_id: newsletter.id,
              audience_name: 'Newsletter',
              scope: 'all',
              dry_run: false,
            },
          ],
          [
            'run.cancelled',
            keyActor(),
            { type: 'run', id: started.body.id },
            { integration_id: integrationId, audience_id: newsletter.id },
          ],
        ],
      );
    });

    test('schedules: created, changed (before and after) and deleted', async () => {
      const path = `/integrations/${integrationId}/schedules`;
      const created = await call(keyCaller, 'POST', path, { audience_id: newsletter.id, cron: '0 3 * * 1' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id;
      const patch = { cron: '0 4 * * 1', paused: true };
      assert.equal((await call(keyCaller, 'PATCH', `${path}/${id}`, patch)).status, 200);
      assert.equal((await call(keyCaller, 'DELETE', `${path}/${id}`)).status, 204);
      const settings = {
        cron: '0 3 * * 1',
        timezone: 'UTC',
        scope: 'all',
        stale_days: 90,
        statuses: ['subscribed'],
        write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
        paused: false,
      };
      const recorded = await latest(keyCaller, 3);
      const target = { type: 'schedule', id };
      const where = { integration_id: integrationId, audience_id: newsletter.id };
      assert.deepEqual(
        recorded.map((entry) => [entry.action, entry.actor, entry.target, entry.details]),
        [
          ['schedule.created', keyActor(), target, { ...where, ...settings }],
          [
            'schedule.updated',
            keyActor(),
            target,
            {
              integration_id: integrationId,
              before: { cron: '0 3 * * 1', paused: false },
              after: { cron: '0 4 * * 1', paused: true },
            },
          ],
          ['schedule.deleted', keyActor(), target, { ...where, ...settings, ...patch }],
        ],
      );
    });

    test('watches: created and deleted', async () => {
      const path = `/integrations/${integrationId}/watches`;
      const created = await call(keyCaller, 'POST', path, { audience_id: newsletter.id });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await call(keyCaller, 'DELETE', `${path}/${created.body.id}`)).status, 204);
      const recorded = await latest(keyCaller, 2);
      const details = { integration_id: integrationId, audience_id: newsletter.id };
      assert.deepEqual(
        recorded.map((entry) => [entry.action, entry.actor, entry.target, entry.details]),
        [
          ['watch.created', keyActor(), { type: 'watch', id: created.body.id }, details],
          ['watch.deleted', keyActor(), { type: 'watch', id: created.body.id }, details],
        ],
      );
    });

    test('pages newest first with `before`, filters by action, and refuses what is not a query', async () => {
      const all = await entries(keyCaller, '?limit=200');
      assert.ok(all.length >= 10);
      const ids = all.map((entry) => entry.id);
      assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const query: string = cursor === null ? '?limit=3' : `?limit=3&before=${cursor}`;
        const page = await call(keyCaller, 'GET', `/audit${query}`);
        assert.equal(page.status, 200);
        assert.ok(page.body.entries.length <= 3);
        seen.push(...page.body.entries.map((entry: Entry) => entry.id));
        cursor = page.body.next_before;
        if (cursor === null) break;
        assert.equal(cursor, seen.at(-1));
      }
      assert.deepEqual(seen, ids, 'the pages together are the whole log, each entry once');

      const connected = await entries(keyCaller, '?action=integration.connected');
      assert.deepEqual(
        connected.map((entry) => entry.id),
        all.filter((entry) => entry.action === 'integration.connected').map((entry) => entry.id),
      );
      assert.equal(connected.length, 2);
      const older = await entries(keyCaller, `?action=integration.connected&before=${connected[0]!.id}`);
      assert.deepEqual(older, [connected[1]]);
      assert.equal((await call(keyCaller, 'GET', '/audit')).body.entries.length, Math.min(all.length, 50));

      for (const query of ['?limit=0', '?limit=201', '?limit=x', '?before=123', '?action=key.deleted']) {
        const refused = await call(keyCaller, 'GET', `/audit${query}`);
        assert.equal(refused.status, 422, query);
        assert.equal(refused.body.code, 'validation_failed');
      }
      assert.equal((await call(null, 'GET', '/audit')).status, 401);
    });

    test("another account's entries never show, whatever the cursor or filter", async () => {
      const mine = await entries(keyCaller, '?limit=200');
      const other = await browser('/signup', `other-${kind}@example.com`);
      const theirs = await entries(other, '?limit=200');
      assert.deepEqual(
        theirs.map((entry) => entry.action),
        ['account.created'],
      );
      const newest = mine[0]!.id;
      for (const query of [
        `?before=${'aud_'.padEnd(36, 'f')}`,
        '?action=list.deleted',
        `?before=${newest}`,
      ]) {
        const seen = await entries(other, query);
        assert.ok(
          seen.every((entry) => entry.actor.type === 'user' && entry.actor.id === userActor(other).id),
          query,
        );
      }
      assert.ok(
        (await entries(keyCaller, `?before=${theirs[0]!.id}&limit=200`)).every((entry) =>
          mine.some((known) => known.id === entry.id),
        ),
      );
    });

    test('no route changes or deletes an entry', async () => {
      const before = await entries(keyCaller, '?limit=200');
      const id = before[0]!.id;
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const url of ['/api/v1/audit', `/api/v1/audit/${id}`]) {
          assert.equal(t.app.hasRoute({ method, url }), false, `${method} ${url}`);
          const answer = await call(keyCaller, method, url.slice('/api/v1'.length), { action: 'x' });
          assert.ok([404, 405].includes(answer.status), `${method} ${url}: ${answer.status}`);
        }
      }
      assert.equal(t.app.hasRoute({ method: 'GET', url: '/api/v1/audit/:id' }), false);
      assert.deepEqual(await entries(keyCaller, '?limit=200'), before);
    });
  });
}

auditApiSuite('sqlite', async () => undefined);

const postgres = await requirePostgres('PostgreSQL audit log API suite');
if (postgres.url === null) {
  test('audit log through the API (postgres)', (t) => t.skip(postgres.skipReason));
} else {
  const schemas = schemaFactory(postgres.url);
  after(() => schemas.dropAll());
  auditApiSuite('postgres', async () => (await schemas.create()).url);
}

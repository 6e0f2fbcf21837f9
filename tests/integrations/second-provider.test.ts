/**
 * A second email platform is an adapter and nothing else (docs/architecture.md, "Another email platform"): "Acme
 * Mail" (acme-platform.ts), written only against the provider port, is offered to the real server
 * beside Mailchimp. Through the same routes it connects (its key shape, its name in messages), lists
 * its audience, runs a whole validation with write-back (list job, worker, its own asynchronous
 * writes), watches new contacts through `/hooks/acme/{token}` with its own JSON events, connects by
 * its OAuth at `/integrations/acme/connect`, and is disconnected when it revokes the key. A token
 * of one platform's watch is no hook of another's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/free-port.ts';
import { signUp } from '../http/routes/v1/accounts/sessions.ts';
import { type ListServer, startListServer } from '../lists/list-server.ts';
import { type AcmeList, AcmePlatform } from './acme-platform.ts';

const SUBSCRIBED = ['alice@accept.test', 'bob@accept.test', 'nobody@accept.test', 'anyone@catchall.test'];

/** Polls `check` until it gives a value (a hang guard, not a timing assertion). */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a second platform through the same routes, runs and hooks', () => {
  const acme = new AcmePlatform();
  let server: ListServer;
  let origin: string;
  let key: string;
  let acmeKey: string;
  let list: AcmeList;
  let integrationId: string;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startListServer(
      { PORT: String(port), MAILVET_PUBLIC_URL: origin, MAILVET_RUN_POLL_MS: '100' },
      {},
      { moreProviders: [acme] },
    );
    key = await server.key({ quota: 1000 });
    ({ key: acmeKey, list } = acme.addAccount('Members', [
      ...SUBSCRIBED.map((email) => ({ email })),
      { email: 'gone@accept.test', status: 'unsubscribed' as const },
    ]));
  });
  after(async () => {
    await server?.close();
  });

  const api = (method: string, path: string, body?: unknown) => server.call(key, method, path, body);

  test('connects with its own key shape, named as itself; an unknown platform is a 422 on provider', async () => {
    const unknown = await api('POST', '/integrations', { provider: 'nosuch', api_key: acmeKey });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.errors[0].field, 'provider');
    assert.equal(unknown.body.errors[0].message, 'Must be one of: mailchimp, hubspot, acme');
    const misshapen = await api('POST', '/integrations', { provider: 'acme', api_key: 'abc-us21' });
    assert.equal(misshapen.status, 422);
    assert.equal(misshapen.body.errors[0].field, 'api_key');
    assert.match(misshapen.body.errors[0].message, /Not a Acme Mail API key: acme_/);

    const created = await api('POST', '/integrations', { provider: 'acme', api_key: acmeKey });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.provider, 'acme');
    assert.equal(created.body.dc, 'eu1');
    assert.equal(created.body.account_name, 'Acme account of Members');
    assert.equal(JSON.stringify(created.body).includes(acmeKey), false, 'the key is never shown');
    integrationId = created.body.id;

    const audiences = await api('GET', `/integrations/${integrationId}/audiences`);
    assert.equal(audiences.status, 200);
    assert.deepEqual(
      audiences.body.audiences.map((each: { id: string; name: string; member_count: number }) => [
        each.id,
        each.name,
        each.member_count,
      ]),
      [[list.id, 'Members', 5]],
    );
  });

  test('a run reads, verifies as a list and writes every subscribed contact back once', async () => {
    const started = await api('POST', `/integrations/${integrationId}/runs`, { audience_id: list.id });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const run = await until('the run to end', async () => {
      const seen = await api('GET', `/integrations/${integrationId}/runs/${started.body.id}`);
      return ['completed', 'failed', 'cancelled'].includes(seen.body.state) ? seen.body : undefined;
    });
    assert.equal(run.state, 'completed', JSON.stringify(run));
    assert.equal(run.counts.members, 4);
    assert.equal(run.counts.written, 4);
    assert.equal(run.counts.write_errors, 0);

    const contacts = new Map([...list.contacts.values()].map((contact) => [contact.email, contact]));
    assert.equal(contacts.get('alice@accept.test')?.written?.status, 'VALID');
    assert.equal(contacts.get('nobody@accept.test')?.written?.status, 'INVALID');
    for (const email of SUBSCRIBED) assert.equal(contacts.get(email)?.writes, 1, email);
    assert.equal(contacts.get('gone@accept.test')?.written, null, 'unsubscribed contacts are left alone');

    // Its results are a list named after the platform.
    const resultList = await api('GET', `/lists/${run.list_id}`);
    assert.match(resultList.body.name, /^Acme Mail: Members$/);
  });

  test("a watch's hook is the platform's own: its JSON events verify new contacts; another platform's path is a 404", async () => {
    const watch = await api('POST', `/integrations/${integrationId}/watches`, { audience_id: list.id });
    assert.equal(watch.status, 201, JSON.stringify(watch.body));
    const [hookUrl] = [...list.webhooks.values()];
    assert.ok(hookUrl !== undefined);
    assert.match(hookUrl, new RegExp(`^${origin}/hooks/acme/[A-Za-z0-9_-]{43}$`));
    assert.equal((await fetch(hookUrl)).status, 200);
    const token = hookUrl.split('/').at(-1)!;
    assert.equal((await fetch(`${origin}/hooks/mailchimp/${token}`)).status, 404);
    assert.equal((await fetch(`${origin}/hooks/nosuch/${token}`)).status, 404);

    const carol = acme.addContact(list, 'carol@accept.test');
    const posted = await fetch(hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'contact.created', list: list.id, contact: { email: carol.email } }),
    });
    assert.equal(posted.status, 200);
    const written = await until('carol to be written back', () => carol.written ?? undefined);
    assert.equal(written.status, 'VALID');

    // Acme's token and Acme's event at Mailchimp's path: no such hook.
    const crossed = await fetch(`${origin}/hooks/mailchimp/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        event: 'contact.created',
        list: list.id,
        contact: { email: 'dave@accept.test' },
      }),
    });
    assert.equal(crossed.status, 404);

    const removed = await api('DELETE', `/integrations/${integrationId}/watches/${watch.body.id}`);
    assert.equal(removed.status, 204);
    assert.equal(list.webhooks.size, 0, "the platform's webhook is removed");
  });

  test('a key the platform revokes disconnects the integration with a message naming it', async () => {
    acme.revoke(acmeKey);
    const audiences = await api('GET', `/integrations/${integrationId}/audiences`);
    assert.equal(audiences.status, 409);
    assert.equal(audiences.body.code, 'integration_disconnected');
    const integration = await api('GET', `/integrations/${integrationId}`);
    assert.equal(integration.body.state, 'disconnected');
    assert.match(integration.body.message, /Acme: this key was revoked\. Connect the account again\./);
  });
});

test("a platform's OAuth flow is at /integrations/{provider}/connect, its state bound to the session and the platform", async () => {
  const acme = new AcmePlatform();
  const { list } = acme.addAccount('By OAuth', [{ email: 'alice@accept.test' }]);
  const t = await testApp({
    plans: { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } },
    env: {
      MAILVET_PUBLIC_URL: 'http://localhost:8080',
      // Mailchimp's OAuth too, for a state issued for it (its consent page is never asked).
      MAILVET_MAILCHIMP_CLIENT_ID: 'mailvet-app',
      MAILVET_MAILCHIMP_CLIENT_SECRET: 'app-secret-0123456789',
    },
    moreProviders: [acme],
  });
  try {
    const browser = await signUp(t.app);
    const started = await browser.request({ method: 'GET', url: '/integrations/acme/connect' });
    assert.equal(started.statusCode, 303);
    const authorize = new URL(String(started.headers.location));
    assert.equal(authorize.origin, 'https://login.acme.example');
    assert.equal(
      authorize.searchParams.get('redirect_uri'),
      'http://localhost:8080/integrations/acme/callback',
    );
    const state = authorize.searchParams.get('state')!;

    // A state this session was given for Mailchimp is no state for Acme's callback.
    const toMailchimp = await browser.request({ method: 'GET', url: '/integrations/mailchimp/connect' });
    const mailchimpState = new URL(String(toMailchimp.headers.location)).searchParams.get('state')!;
    const crossed = await browser.request({
      method: 'GET',
      url: `/integrations/acme/callback?code=${acme.issueCode(list)}&state=${encodeURIComponent(mailchimpState)}`,
    });
    assert.equal(crossed.headers.location, '/integrations?error=state&provider=acme');

    const forged = await browser.request({
      method: 'GET',
      url: `/integrations/acme/callback?code=${acme.issueCode(list)}&state=forged`,
    });
    assert.equal(forged.headers.location, '/integrations?error=state&provider=acme');

    const back = await browser.request({
      method: 'GET',
      url: `/integrations/acme/callback?code=${acme.issueCode(list)}&state=${encodeURIComponent(state)}`,
    });
    assert.equal(back.statusCode, 303);
    const connected = new URL(String(back.headers.location), 'http://localhost:8080').searchParams.get(
      'connected',
    );
    assert.ok(connected !== null, String(back.headers.location));
    const listed = (await browser.request({ method: 'GET', url: '/api/v1/integrations' })).json();
    assert.deepEqual(
      listed.integrations.map((each: { id: string; provider: string; dc: string }) => [
        each.id,
        each.provider,
        each.dc,
      ]),
      [[connected, 'acme', 'eu1']],
    );
    // Mailchimp's own link is reported beside the other platform's.
    assert.equal(listed.mailchimp_oauth_url, '/integrations/mailchimp/connect');
  } finally {
    await t.close();
  }
});

/**
 * Connecting Mailchimp by OAuth against the emulator's authorize, token and metadata
 * endpoints: the dashboard's link goes to the consent page with a state bound to the session; the
 * callback connects and returns to the Integrations page; the token then works on the API. A state
 * from another session, a forged or expired one, a replayed code, a refusal at Mailchimp and a
 * browser without a session all end on the Integrations page with an error, connecting nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILT_IN_PLANS } from '../../src/accounts/plans.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { type Browser, signUp } from '../http/routes/v1/accounts/sessions.ts';
import {
  type EmulatedAccount,
  type MailchimpEmulator,
  startMailchimpEmulator,
} from '../mailchimp/emulator.ts';

const CLIENT = { clientId: 'mailvet-app', clientSecret: 'app-secret-0123456789' };
const ORIGIN = 'http://localhost:8080';
const PLANS = { ...BUILT_IN_PLANS, free: { ...BUILT_IN_PLANS.free!, ratePerSecond: 1000 } };

let emulator: MailchimpEmulator;
let t: TestApp;
let shop: EmulatedAccount;
let clock = Date.now();

before(async () => {
  emulator = await startMailchimpEmulator({ oauth: CLIENT });
  shop = emulator.addAccount({ dc: 'us14', name: 'OAuth Shop' });
  emulator.addAudience(shop, { name: 'Everyone' });
  const origin = new URL(emulator.oauthBase).origin;
  t = await testApp({
    plans: PLANS,
    now: () => new Date(clock),
    env: {
      MAILVET_PUBLIC_URL: ORIGIN,
      MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
      MAILVET_MAILCHIMP_LOGIN_URL: origin,
      MAILVET_MAILCHIMP_CLIENT_ID: CLIENT.clientId,
      MAILVET_MAILCHIMP_CLIENT_SECRET: CLIENT.clientSecret,
    },
  });
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

/** The dashboard's link: the consent page's URL. */
async function start(browser: Browser): Promise<URL> {
  const response = await browser.request({ method: 'GET', url: '/integrations/mailchimp/connect' });
  assert.equal(response.statusCode, 303);
  return new URL(String(response.headers.location));
}

/** Mailchimp's consent page, allowed: the callback URL it sends the browser back to. */
async function consent(authorize: URL): Promise<URL> {
  const response = await fetch(authorize, { redirect: 'manual' });
  assert.equal(response.status, 302);
  return new URL(String(response.headers.get('location')));
}

async function callback(browser: Browser | null, url: URL): Promise<URLSearchParams> {
  const response = await t.app.inject({
    method: 'GET',
    url: `${url.pathname}${url.search}`,
    headers: browser === null ? {} : { cookie: browser.cookie },
  });
  assert.equal(response.statusCode, 303, response.body);
  const location = String(response.headers.location);
  if (location === '/') return new URLSearchParams({ signed_out: 'true' });
  assert.match(location, /^\/integrations\?/);
  return new URL(location, ORIGIN).searchParams;
}

test('the link goes to Mailchimp with our app and callback; the callback connects; the token works', async () => {
  const browser = await signUp(t.app);
  const listed = (await browser.request({ method: 'GET', url: '/api/v1/integrations' })).json();
  assert.equal(listed.mailchimp_oauth_url, '/integrations/mailchimp/connect');
  const authorize = await start(browser);
  assert.equal(authorize.searchParams.get('client_id'), CLIENT.clientId);
  assert.equal(authorize.searchParams.get('redirect_uri'), `${ORIGIN}/integrations/mailchimp/callback`);
  assert.equal(authorize.searchParams.get('response_type'), 'code');
  emulator.oauthLoginAs(shop);
  const back = await consent(authorize);
  const outcome = await callback(browser, back);
  const id = outcome.get('connected');
  assert.match(id ?? '', /^int_/, outcome.toString());
  const integration = (await browser.request({ method: 'GET', url: `/api/v1/integrations/${id}` })).json();
  assert.deepEqual(
    [integration.account_name, integration.dc, integration.state],
    ['OAuth Shop', 'us14', 'connected'],
  );
  const audiences = await browser.request({ method: 'GET', url: `/api/v1/integrations/${id}/audiences` });
  assert.equal(audiences.statusCode, 200, audiences.body);
  assert.deepEqual(
    audiences.json().audiences.map((audience: { name: string }) => audience.name),
    ['Everyone'],
  );

  // The code is one-time: the same callback again connects nothing more.
  assert.equal((await callback(browser, back)).get('error'), 'refused');
  assert.equal(
    (await browser.request({ method: 'GET', url: '/api/v1/integrations' })).json().integrations.length,
    1,
  );
});

test('a state from another session, a forged or an expired one is refused; so is a refusal at Mailchimp', async () => {
  const victim = await signUp(t.app);
  const attacker = await signUp(t.app);
  emulator.oauthLoginAs(shop);
  // The attacker's own flow, handed to the victim: bound to the attacker's session, refused.
  const planted = await consent(await start(attacker));
  assert.equal((await callback(victim, planted)).get('error'), 'state');

  const mine = await consent(await start(victim));
  const forged = new URL(mine);
  forged.searchParams.set('state', `${mine.searchParams.get('state')}x`);
  assert.equal((await callback(victim, forged)).get('error'), 'state');

  const stale = await consent(await start(victim));
  clock += 11 * 60 * 1000;
  try {
    assert.equal((await callback(victim, stale)).get('error'), 'state');
  } finally {
    clock = Date.now();
  }

  emulator.oauthLoginAs('deny');
  assert.equal((await callback(victim, await consent(await start(victim)))).get('error'), 'denied');
  assert.equal((await callback(null, mine)).get('signed_out'), 'true', 'no session: back to sign-in');
  assert.deepEqual(
    (await victim.request({ method: 'GET', url: '/api/v1/integrations' })).json().integrations,
    [],
  );

  const signedOut = await t.app.inject({ method: 'GET', url: '/integrations/mailchimp/connect' });
  assert.equal(signedOut.statusCode, 303);
  assert.equal(signedOut.headers.location, '/');
});

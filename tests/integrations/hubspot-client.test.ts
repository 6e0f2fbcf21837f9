/**
 * HubSpot's client and tokens against the emulator: OAuth (code, 30-minute tokens refreshed before
 * they expire and once after a 401, a refused refresh disconnecting), the scopes check at connect,
 * 429 and 500 retried within the window, and the v3 signature of app webhooks (signed, forged,
 * stale).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MemoryInFlightLimiter } from '../../src/adapters/integrations/memory-in-flight.ts';
import { MemoryRequestWindow } from '../../src/adapters/request-window/memory.ts';
import { HubSpotProvider } from '../../src/integrations/hubspot/provider.ts';
import { appEvents, signedByHubSpot } from '../../src/integrations/hubspot/signature.ts';
import { CredentialInsufficient, ProviderAuthError } from '../../src/integrations/ports.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { addContact } from '../hubspot/state.ts';

const app = { clientId: 'client-1', clientSecret: 'secret-1' };

describe('HubSpot client, tokens and signatures', () => {
  let emulator: HubSpotEmulator;
  let clock = Date.now();
  const provider = () =>
    new HubSpotProvider({
      baseUrl: emulator.origin,
      inFlight: new MemoryInFlightLimiter(),
      window: new MemoryRequestWindow(),
      perTenSeconds: 100,
      fetch,
      oauth: { loginUrl: emulator.origin, clientId: app.clientId, clientSecret: app.clientSecret },
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      now: () => clock,
    });

  before(async () => {
    emulator = await startHubSpotEmulator({ app });
    emulator.now = () => clock;
  });
  after(() => emulator.close());

  test('OAuth: the code is traded, the token refreshed before expiry and once after a 401; a refused refresh is an auth error', async () => {
    const { portal } = emulator.addPortal(101);
    addContact(portal, 'a@accept.test');
    const hubspot = provider();
    const authorize = new URL(hubspot.oauth!.authorizeUrl('http://127.0.0.1/cb', 'st'));
    assert.equal(authorize.pathname, '/oauth/authorize');
    assert.match(authorize.searchParams.get('scope')!, /crm\.objects\.contacts\.write/);
    const { accessToken: refreshToken } = await hubspot.oauth!.exchange(
      emulator.grant(101, 'http://127.0.0.1/cb'),
      'http://127.0.0.1/cb',
    );
    const session = hubspot.session({ kind: 'oauth', secret: refreshToken, dc: 'oauth' });
    const account = await session.account();
    assert.deepEqual(account, { id: '101', name: 'portal101.hubspot.test', dc: 'na1' });
    const tokensBefore = emulator.count('/oauth/v3/token');
    // 26 minutes on: within 5 minutes of expiry, refreshed before the request.
    clock += 26 * 60_000;
    await session.audiences();
    assert.equal(emulator.count('/oauth/v3/token'), tokensBefore + 1);
    // HubSpot forgets the token early: one 401, one refresh, the request goes through.
    for (const token of emulator.world.tokens.values()) if (token.kind === 'oauth') token.revoked = true;
    assert.equal((await session.audiences())[0]!.memberCount, 1);
    assert.equal(emulator.count('/oauth/v3/token'), tokensBefore + 2);
    // The app uninstalled: the refresh is refused with HubSpot's reason.
    emulator.revoke(refreshToken);
    for (const token of emulator.world.tokens.values()) if (token.kind === 'oauth') token.revoked = true;
    await assert.rejects(session.audiences(), (error: unknown) => {
      assert.ok(error instanceof ProviderAuthError);
      assert.match((error as Error).message, /missing or unknown refresh token/);
      return true;
    });
  });

  test('a private app token without a needed scope is refused naming the missing scopes', async () => {
    const { token } = emulator.addPortal(102, undefined, ['crm.objects.contacts.read', 'crm.lists.read']);
    const session = provider().session({ kind: 'api_key', secret: token, dc: 'na1' });
    await assert.rejects(session.account(), (error: unknown) => {
      assert.ok(error instanceof CredentialInsufficient);
      assert.match((error as Error).message, /crm\.objects\.contacts\.write, crm\.schemas\.contacts\.read/);
      return true;
    });
    assert.equal(provider().apiKeyDc(token), 'na1');
    assert.equal(provider().apiKeyDc('pat-na1-nope'), null);
  });

  test('429 and 500 are retried; the window is kept across 250 requests', async () => {
    const { portal, token } = emulator.addPortal(103);
    for (let i = 0; i < 250; i++) addContact(portal, `c${i}@accept.test`);
    const session = provider().session({ kind: 'api_key', secret: token, dc: 'na1' });
    emulator.fail(2, 429);
    emulator.fail(2, 500);
    const page = await session.members('all', { statuses: ['subscribed'], offset: 0, count: 1000 });
    assert.equal(page.members.length, 250);
    assert.equal(page.total, 250);
    assert.equal(emulator.count('/crm/v3/objects/contacts', 'GET'), 3 + 4);
  });

  test('writes: 100 contacts a batch, a missing contact an error, invalid ones opted out when asked', async () => {
    const { portal, token } = emulator.addPortal(104);
    const ids = Array.from({ length: 150 }, (_, i) => addContact(portal, `w${i}@accept.test`).id);
    const session = provider().session({ kind: 'api_key', secret: token, dc: 'na1' });
    const options = { fields: true, tags: true, segments: true, unsubscribeInvalid: true };
    await session.prepareWriteBack('all', options);
    await session.prepareWriteBack('all', options);
    const created = (path: string) =>
      emulator.requests.filter((r) => r.method === 'POST' && r.path === path).length;
    assert.equal(created('/crm/v3/properties/contacts'), 4, 'four properties, created once');
    assert.equal(created('/crm/v3/properties/contacts/groups'), 1, 'the group, created once');
    assert.equal(created('/crm/v3/lists'), 3, 'three score lists, created once');
    const before = emulator.count('/crm/v3/objects/contacts/batch/update');
    const results = ids.map((memberId, i) => ({
      memberId,
      status: i < 3 ? ('INVALID' as const) : ('VALID' as const),
      score: i < 3 ? 5 : 95,
      checkedOn: '2026-11-20',
    }));
    const job = await session.submitWrites(
      'all',
      [...results, { ...results[0]!, memberId: '999999' }],
      options,
    );
    const outcome = await session.writeOutcome(job);
    assert.equal(outcome?.written, 150);
    assert.deepEqual(
      outcome?.errors.map((error) => error.memberId),
      ['999999'],
    );
    assert.equal(emulator.count('/crm/v3/objects/contacts/batch/update') - before, 2);
    const first = portal.contacts.get(ids[0]!)!;
    assert.deepEqual(
      [
        first.properties.mailvet_status,
        first.properties.mailvet_score,
        first.properties.mailvet_checked,
        first.properties.mailvet_category,
        first.properties.hs_email_optout,
      ],
      ['INVALID', '5', '2026-11-20', 'invalid', 'true'],
    );
    assert.equal(portal.contacts.get(ids[3]!)!.properties.hs_email_optout, 'false');
    assert.equal(emulator.count('/communication-preferences/v4/statuses/batch/unsubscribe-all'), 1);
    assert.equal(emulator.requests.filter((r) => r.method === 'DELETE').length, 0);
  });

  test('app webhooks: signed v3 accepted, forged and stale refused', async () => {
    const seen: boolean[] = [];
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        seen.push(
          signedByHubSpot(
            {
              method: request.method!,
              uri: `${origin}${request.url}`,
              body,
              signature: request.headers['x-hubspot-signature-v3'] as string | undefined,
              timestamp: request.headers['x-hubspot-request-timestamp'] as string | undefined,
            },
            app.clientSecret,
          ),
        );
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/hubspot`;
    const events = [
      {
        eventId: 1,
        portalId: 101,
        objectId: 5,
        subscriptionType: 'contact.creation',
        occurredAt: Date.now(),
      },
    ];
    await emulator.sendEvents(url, events, app.clientSecret);
    await emulator.sendEvents(url, events, 'not-the-secret');
    await emulator.sendEvents(url, events, app.clientSecret, { timestamp: Date.now() - 6 * 60_000 });
    await emulator.sendEvents(url, events, app.clientSecret, { signature: 'AAAA' });
    server.close();
    assert.deepEqual(seen, [true, false, false, false]);
    assert.equal(appEvents(events).length, 1);
    assert.equal(appEvents([{ ...events[0], subscriptionType: 'deal.creation' }]).length, 0);
  });
});

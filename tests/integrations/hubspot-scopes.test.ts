/**
 * A HubSpot token without a scope a feature needs: it connects (the scopes every connection needs
 * are there), and the feature answers 409 `integration_scope_missing` naming the scope HubSpot's
 * 403 MISSING_SCOPES named, not a generic failure; the integration stays connected.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { type HubSpotEmulator, startHubSpotEmulator } from '../hubspot/emulator.ts';
import { ALL_SCOPES } from '../hubspot/state.ts';

let emulator: HubSpotEmulator;
let t: TestApp;

before(async () => {
  emulator = await startHubSpotEmulator();
  t = await testApp({ env: { MAILVET_HUBSPOT_BASE_URL: emulator.origin } });
});
after(async () => {
  await t?.close();
  await emulator?.close();
});

test('campaigns without the content scope: 409 naming it, the integration still connected', async () => {
  const { token } = emulator.addPortal(
    8_000_001,
    undefined,
    ALL_SCOPES.filter((scope) => scope !== 'content'),
  );
  const call = async (method: string, url: string, payload?: unknown) => {
    const response = await t.app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: t.auth(),
      ...(payload !== undefined && { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() };
  };
  const connected = await call('POST', '/integrations', { provider: 'hubspot', api_key: token });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  const drafts = await call('GET', `/integrations/${connected.body.id}/campaigns`);
  assert.equal(drafts.status, 409, JSON.stringify(drafts.body));
  assert.equal(drafts.body.code, 'integration_scope_missing');
  assert.match(drafts.body.message, /scope content/);
  const check = await call('POST', `/integrations/${connected.body.id}/campaign-checks`, {
    campaign_id: '1',
  });
  assert.equal(check.status, 409);
  assert.equal(check.body.code, 'integration_scope_missing');
  assert.equal((await call('GET', `/integrations/${connected.body.id}`)).body.state, 'connected');
});

/**
 * GET /api/v1/doctor: operators (users marked so in the store) see the host check's report; any
 * other user, and any API key, gets the 404 of an unknown thing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { signUp } from '../http/routes/v1/accounts/sessions.ts';
import { type DoctorWorld, EGRESS, startDoctorWorld } from './doctor-world.ts';

let world: DoctorWorld;
let t: TestApp;

before(async () => {
  world = await startDoctorWorld();
  t = await testApp({ env: world.env });
});

/** Signs `email` up, then marks the user an operator in the store (as `mailvet users update` does). */
async function operatorSignedUp(email: string) {
  const browser = await signUp(t.app, email);
  const user = await t.store.users.findUserByEmail(email);
  assert.ok(user !== null);
  await t.store.users.setOperator(user.id, true);
  return browser;
}
after(async () => {
  await t?.close();
  await world?.close();
});

describe('GET /api/v1/doctor', () => {
  it('shows an operator the report, and keeps it: a second read is the same run', async () => {
    const operator = await operatorSignedUp('ops@example.com');
    const response = await operator.request({ method: 'GET', url: '/api/v1/doctor' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as {
      checked_at: string;
      egress_ip: string | null;
      counts: Record<string, number>;
      findings: Array<{ check: string; status: string; summary: string; details: Record<string, unknown> }>;
    };
    assert.equal(body.egress_ip, EGRESS);
    assert.deepEqual(body.counts, { pass: 7, warn: 0, fail: 0, skipped: 0 });
    const port = body.findings.find((item) => item.check === 'port_25');
    assert.equal(port?.status, 'pass');
    assert.ok(Array.isArray(port?.details.hosts), 'details are kept');
    const again = await operator.request({ method: 'GET', url: '/api/v1/doctor' });
    assert.equal((again.json() as { checked_at: string }).checked_at, body.checked_at);
    assert.equal(world.smtp.stats.connections, 1);
  });

  it('answers 404 not_found to a user who is not an operator, and to an API key', async () => {
    const user = await signUp(t.app);
    const asUser = await user.request({ method: 'GET', url: '/api/v1/doctor' });
    assert.equal(asUser.statusCode, 404);
    assert.equal((asUser.json() as { code: string }).code, 'not_found');
    const badQuery = await user.request({ method: 'GET', url: '/api/v1/doctor?refresh=yes' });
    assert.equal(badQuery.statusCode, 404);
    const asKey = await t.app.inject({ method: 'GET', url: '/api/v1/doctor', headers: t.auth() });
    assert.equal(asKey.statusCode, 404);
    assert.equal((asKey.json() as { code: string }).code, 'not_found');
  });

  it("validates an operator's query string", async () => {
    const operator = await operatorSignedUp('second@example.com');
    const response = await operator.request({ method: 'GET', url: '/api/v1/doctor?refresh=yes' });
    assert.equal(response.statusCode, 422);
    assert.equal((response.json() as { errors: Array<{ field: string }> }).errors[0]?.field, 'refresh');
  });

  it('asks for authentication first', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/doctor' });
    assert.equal(response.statusCode, 401);
  });
});

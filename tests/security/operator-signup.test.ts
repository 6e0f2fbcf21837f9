/**
 * Attack: anyone could become an operator by signing up with an operator's address.
 * MAILVET_OPERATORS trusted the sign-in email, and open sign-up never confirms that the person owns
 * it: signing up as `OPS@…` (any case) gave `/api/v1/doctor` 200, and `?refresh=1` re-ran the host
 * probes. Operators are now marked on the user by the CLI; the variable grants nothing (a start
 * with it set says so), so the same sign-up is an ordinary user.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RETIRED_OPERATORS_WARNING } from '../../src/container/store.ts';
import { type DoctorWorld, startDoctorWorld } from '../doctor/doctor-world.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { LogCapture } from '../http/log-capture.ts';
import { signUp } from '../http/routes/v1/accounts/sessions.ts';
import { startListServer } from '../lists/list-server.ts';

let world: DoctorWorld;
let t: TestApp;

before(async () => {
  world = await startDoctorWorld();
  t = await testApp({ env: { ...world.env, MAILVET_OPERATORS: 'ops@example.com' } });
});
after(async () => {
  await t?.close();
  await world?.close();
});

test("signing up with an operator's address (any case) gives no operator's access", async () => {
  const stranger = await signUp(t.app, 'OPS@Example.com');
  const session = await stranger.request({ method: 'GET', url: '/api/v1/session' });
  assert.equal((session.json() as { user: { operator: boolean } }).user.operator, false);
  for (const url of ['/api/v1/doctor', '/api/v1/doctor?refresh=1']) {
    const response = await stranger.request({ method: 'GET', url });
    assert.equal(response.statusCode, 404, `${url}: ${response.body}`);
  }
  assert.equal(world.smtp.stats.connections, 0, 'the host probes were not run for the stranger');
});

test('a user the operator marked (the CLI, here its store call) reads the report', async () => {
  const marked = await signUp(t.app, 'real-ops@example.com');
  const user = await t.store.users.findUserByEmail('real-ops@example.com');
  assert.ok(user !== null);
  await t.store.users.setOperator(user.id, true);
  const response = await marked.request({ method: 'GET', url: '/api/v1/doctor' });
  assert.equal(response.statusCode, 200, response.body);
});

test('a server started with MAILVET_OPERATORS says it is ignored and what to run instead', async () => {
  const logs = new LogCapture();
  const server = await startListServer(
    { MAILVET_OPERATORS: 'ops@example.com' },
    {},
    { logger: { level: 'info', stream: logs } },
  );
  await server.close();
  const warnings = logs
    .entries()
    .filter((entry) => entry.level === 40)
    .map((entry) => entry.msg);
  assert.ok(warnings.includes(RETIRED_OPERATORS_WARNING), JSON.stringify(warnings));
  assert.match(RETIRED_OPERATORS_WARNING, /mailvet users update USER_ID --operator/);
});

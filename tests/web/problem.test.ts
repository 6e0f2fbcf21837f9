/** The dashboard's reading of the API's error body: messages placed beside the fields at fault. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formErrors, type Problem, settle } from '../../web/src/api/problem.ts';

const problem = (errors: Problem['errors'], message = 'The request body is not valid'): Problem => ({
  message,
  errors,
  code: 'validation_failed',
  request_id: 'r1',
});

test('a field the form has gets its message; the form message is left out', () => {
  assert.deepEqual(
    formErrors(problem([{ field: 'password', message: 'Use at least 10 characters' }]), [
      'email',
      'password',
    ]),
    {
      form: null,
      fields: { password: 'Use at least 10 characters' },
    },
  );
});

test('an entry of a list field goes to that field, named by its place', () => {
  const errors = formErrors(problem([{ field: 'emails[3]', message: 'Invalid email format' }]), [
    'name',
    'emails',
  ]);
  assert.deepEqual(errors.fields, { emails: 'Entry 4: Invalid email format' });
});

test('no field at fault, or one the form lacks: one form-level message', () => {
  assert.deepEqual(formErrors(problem([], 'Wrong email or password'), ['email', 'password']), {
    form: 'Wrong email or password',
    fields: {},
  });
  assert.deepEqual(formErrors(problem([{ field: 'webhook_url', message: 'Not a URL' }]), ['name']), {
    form: 'The request body is not valid (webhook_url: Not a URL)',
    fields: {},
  });
});

test('settle: a network failure and a body that is not the API’s both become problems', async () => {
  const unreachable = await settle(Promise.reject(new TypeError('fetch failed')));
  assert.equal(unreachable.ok, false);
  assert.equal(!unreachable.ok && unreachable.status, 0);
  const proxy = await settle(
    Promise.resolve({ error: '<html>Bad gateway</html>', response: new Response('', { status: 502 }) }),
  );
  assert.equal(!proxy.ok && proxy.problem.message, 'Mailvet answered with an unexpected error (HTTP 502).');
  const ok = await settle(
    Promise.resolve({ data: { id: 'k1' }, response: new Response('{}', { status: 201 }) }),
  );
  assert.deepEqual(ok.ok && ok.data, { id: 'k1' });
});

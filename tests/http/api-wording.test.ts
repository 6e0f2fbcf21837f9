/**
 * What the API says about a bad request names what to fix, in words: a bad query parameter is a
 * query-string problem with that parameter's name (not "the request body"); a JSON body sent as
 * text/plain is a Content-Type problem; an unknown field is named; no message carries the
 * validator's own schema talk ("must match pattern …", "must be equal to one of …").
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ rate: 1000 });
});
after(() => t?.close());

const RAW_VALIDATOR_TEXT =
  /must (match|be equal|NOT|have|be (string|integer|number|boolean|array|object|>=|<=))/;

test('a bad query parameter: the query string, by its name, in words', async () => {
  for (const [url, field, message] of [
    ['/api/v1/lists?limit=abc', 'limit', /format/],
    ['/api/v1/lists/lst_x/results?format=xml', 'format', /^Must be one of: csv, json$/],
  ] as const) {
    const response = await t.app.inject({ method: 'GET', url, headers: t.auth() });
    assert.equal(response.statusCode, 422, url);
    const body = response.json();
    assert.equal(body.code, 'validation_failed');
    assert.equal(body.message, 'The query string is not valid');
    assert.equal(body.errors[0].field, field);
    assert.match(body.errors[0].message, message);
    assert.doesNotMatch(JSON.stringify(body), RAW_VALIDATOR_TEXT);
  }
});

test('a valid JSON body sent as text/plain: the Content-Type is named', async () => {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/v1/verify',
    headers: { ...t.auth(), 'content-type': 'text/plain' },
    payload: '{"email": "alice@example.com"}',
  });
  assert.equal(response.statusCode, 400);
  assert.equal(response.json().code, 'bad_request');
  assert.equal(response.json().message, 'Content-Type must be application/json, not text/plain');
});

test('body fields: an unknown one named, wrong types and bounds in words', async () => {
  const cases: Array<[unknown, string, RegExp]> = [
    [{ provider: 'mailchimp', api_key: 'x', extra: 1 }, 'extra', /^Not a known field$/],
    [{ provider: 'sendgrid', api_key: 'x' }, 'provider', /^Must be one of: mailchimp, hubspot$/],
    [{ provider: 'mailchimp', api_key: 7 }, 'api_key', /^Must be a string$/],
    [{ provider: 'mailchimp', api_key: '' }, 'api_key', /^Must be at least 1 character long$/],
  ];
  for (const [payload, field, message] of cases) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/integrations',
      headers: t.auth(),
      payload: payload as Record<string, unknown>,
    });
    assert.equal(response.statusCode, 422, JSON.stringify(payload));
    const body = response.json();
    assert.equal(body.message, 'The request body is not valid');
    assert.equal(body.errors[0].field, field, JSON.stringify(body));
    assert.match(body.errors[0].message, message);
    assert.doesNotMatch(JSON.stringify(body), RAW_VALIDATOR_TEXT);
  }
});

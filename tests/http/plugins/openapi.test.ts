/**
 * GET /api/v1/openapi.json (OpenAPI 3.1, no auth, generated from the route schemas) and GET /docs
 * (the reference page, served from the package's own assets: no outside CDN).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_CODES } from '../../../src/http/errors.ts';
import { type TestApp, testApp } from '../../helpers/app.ts';

let t: TestApp;
// biome-ignore lint/suspicious/noExplicitAny: the document is inspected freely
let doc: any;
before(async () => {
  t = await testApp();
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  doc = response.json();
});
after(() => t.close());

test('OpenAPI 3.1 with a bearer security scheme', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.title, 'Mailvet API');
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    description: doc.components.securitySchemes.bearerAuth.description,
  });
});

test('both verification routes: body, security, every response documented', () => {
  for (const [path, field] of [
    ['/api/v1/verify', 'email'],
    ['/api/v1/verify/bulk', 'emails'],
  ] as const) {
    const operation = doc.paths[path]?.post;
    assert.ok(operation, `${path} documented`);
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    const schema = operation.requestBody.content['application/json'].schema;
    assert.deepEqual(schema.required, [field]);
    assert.deepEqual(Object.keys(operation.responses).sort(), [
      '200',
      '400',
      '401',
      '413',
      '422',
      '429',
      '500',
    ]);
    for (const status of ['400', '401', '413', '422', '429', '500']) {
      assert.equal(
        operation.responses[status].content['application/json'].schema.$ref,
        '#/components/schemas/Error',
      );
    }
    assert.ok(operation.responses['429'].headers['Retry-After']);
    assert.ok(operation.responses['200'].headers['X-Quota-Remaining']);
    assert.ok(operation.responses['401'].headers['WWW-Authenticate']);
  }
  assert.equal(
    doc.paths['/api/v1/verify'].post.requestBody.content['application/json'].schema.properties.email
      .maxLength,
    1024,
  );
  const emails =
    doc.paths['/api/v1/verify/bulk'].post.requestBody.content['application/json'].schema.properties.emails;
  assert.equal(emails.maxItems, 100);
  assert.equal(emails.minItems, 1);
});

test('the result schema lists every documented field as required', () => {
  const result = doc.components.schemas.VerificationResult;
  assert.deepEqual([...result.required].sort(), [
    'checks',
    'duration_ms',
    'email',
    'evidence',
    'reason',
    'score',
    'status',
  ]);
  assert.equal(result.properties.checks.required.length, 11);
  assert.deepEqual(result.properties.checks.properties.catch_all_confidence.type, ['integer', 'null']);
  assert.deepEqual([...result.properties.evidence.required].sort(), [
    'catch_all_probe',
    'catch_all_signals',
    'mx_address',
    'mx_host',
    'provider',
    'smtp_reply',
  ]);
  assert.deepEqual(result.properties.checks.properties.catch_all.type, ['boolean', 'null']);
  assert.ok(result.properties.reason.enum.includes('dns_error'));
  assert.deepEqual(doc.components.schemas.BulkResponse.required, ['results', 'unprocessed']);
  const error = doc.components.schemas.Error;
  assert.deepEqual(error.required, ['message', 'errors', 'code', 'request_id']);
  assert.deepEqual([...error.properties.code.enum].sort(), Object.keys(ERROR_CODES).sort());
});

test('health routes are documented; the docs routes are not', () => {
  assert.ok(doc.paths['/healthz']?.get);
  assert.ok(doc.paths['/readyz']?.get.responses['503']);
  assert.equal(
    Object.keys(doc.paths).some((path) => path.startsWith('/docs') || path.endsWith('openapi.json')),
    false,
  );
});

test('GET /docs: HTML that loads only local assets, which are served', async () => {
  const response = await t.app.inject({ method: 'GET', url: '/docs' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(String(response.headers['content-security-policy']), /script-src 'self'/);
  assert.ok(response.headers['x-request-id'], 'X-Request-Id on the docs page too');
  const references = [...response.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(references.length >= 4, `references: ${references.join(', ')}`);
  for (const reference of references) {
    assert.match(reference, /^\/docs\//, `${reference} is local`);
    const asset = await t.app.inject({ method: 'GET', url: reference });
    assert.equal(asset.statusCode, 200, reference);
  }
  assert.doesNotMatch(response.body, /https?:\/\/|\/\/cdn/);
  const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  assert.match(initializer.body, /validatorUrl: null/, 'no call to the online validator');
});

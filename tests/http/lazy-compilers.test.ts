/**
 * Validators and serializers are compiled on first use, not at start-up: every one of the API's
 * schemas must still compile (proved here by compiling them all), a route compiles its own on its
 * first request, and a schema that cannot compile is named when it is compiled.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { lazyCompilers } from '../../src/http/lazy-compilers.ts';
import { testApp } from '../helpers/app.ts';

describe('schemas compiled on first use', () => {
  it("every route's validators and serializers compile", async () => {
    const compilers = lazyCompilers();
    const t = await testApp({ appOptions: { compilers } });
    try {
      await t.app.ready();
      const compiled = compilers.compileAll();
      assert.ok(compiled > 50, `${compiled} compiled`);
      assert.equal(compilers.compileAll(), 0, 'each is compiled once');
    } finally {
      await t.close();
    }
  });

  it('a request compiles its route’s schemas, and they validate and serialize as eagerly compiled ones did', async () => {
    const untouched = lazyCompilers();
    const used = lazyCompilers();
    const idle = await testApp({ appOptions: { compilers: untouched } });
    const t = await testApp({ appOptions: { compilers: used } });
    try {
      await idle.app.ready();
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: t.auth(),
        payload: { email: 5 },
      });
      assert.equal(refused.statusCode, 422);
      assert.equal(refused.json().code, 'validation_failed');
      assert.equal(refused.json().errors[0].field, 'email');
      const verified = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: t.auth(),
        payload: { email: 'someone@gmail.com' },
      });
      assert.equal(verified.statusCode, 200);
      assert.equal(verified.json().email, 'someone@gmail.com');
      // The schemas of the route just used were compiled by its requests, not by compileAll.
      assert.ok(used.compileAll() < untouched.compileAll());
    } finally {
      await idle.close();
      await t.close();
    }
  });

  it('a schema that cannot compile is named with its route when compiled', async () => {
    const compilers = lazyCompilers();
    const app = Fastify({ schemaController: { compilersFactory: compilers } });
    app.get(
      '/broken',
      { schema: { response: { 200: { type: 'object', properties: { a: { $ref: 'nowhere#' } } } } } },
      async () => ({ a: 1 }),
    );
    await app.ready();
    assert.throws(() => compilers.compileAll(), /GET \/broken \(200\)/);
    await app.close();
  });
});

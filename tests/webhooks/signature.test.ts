/**
 * The webhook signing scheme (docs/webhooks.md): round trips, every way a delivery can be forged
 * or replayed, rotation with several v1 values, per-list secrets, and headers that must be
 * refused without an exception.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { deriveKey } from '../../src/adapters/secret-key.ts';
import {
  signWebhook,
  verifyWebhook,
  webhookSecretFor,
  webhookSigningKey,
} from '../../src/webhooks/signature.ts';

const server = Buffer.alloc(32, 7);
const secret = webhookSecretFor(server, 'lst_0123456789abcdef');
const body = '{"id":"whd_1","event":"list.completed","data":{"list":{"id":"lst_0123456789abcdef"}}}';
const t = 1_773_480_413;
const at = { nowSeconds: t };

describe('webhook secrets', () => {
  it('is whsec_ and 64 hex digits, the same for the same list, different per list and server key', () => {
    assert.match(secret, /^whsec_[0-9a-f]{64}$/);
    assert.equal(webhookSecretFor(server, 'lst_0123456789abcdef'), secret);
    assert.notEqual(webhookSecretFor(server, 'lst_0123456789abcdee'), secret);
    assert.notEqual(webhookSecretFor(Buffer.alloc(32, 8), 'lst_0123456789abcdef'), secret);
  });

  it('is the server key derived for purpose "webhook:<list id>"', () => {
    const derived = deriveKey(server, 'webhook:lst_0123456789abcdef');
    assert.equal(secret, `whsec_${derived.toString('hex')}`);
  });

  it('signs with exactly the bytes the string encodes', () => {
    const key = webhookSigningKey(secret);
    assert.equal(key.length, 32);
    assert.equal(key.toString('hex'), secret.slice('whsec_'.length));
    const expected = createHmac('sha256', key).update(`${t}.${body}`).digest('hex');
    assert.equal(signWebhook(secret, body, t), `t=${t},v1=${expected}`);
    assert.equal(signWebhook(key, body, t), signWebhook(secret, body, t));
  });

  it('refuses malformed secrets when signing', () => {
    for (const bad of ['', 'whsec_', `whsec_${'A'.repeat(64)}`, `whsec_${'0'.repeat(63)}`, 'a'.repeat(70)]) {
      assert.throws(() => webhookSigningKey(bad), TypeError, bad);
      assert.throws(() => signWebhook(bad, body, t), TypeError, bad);
    }
    assert.throws(() => signWebhook([], body, t), TypeError);
    assert.throws(() => signWebhook(secret, body, 1.5), TypeError);
    assert.throws(() => signWebhook(secret, body, -1), TypeError);
  });
});

describe('verifyWebhook', () => {
  const header = signWebhook(secret, body, t);

  it('accepts its own signature, with a string or a Buffer body', () => {
    assert.equal(verifyWebhook(secret, body, header, at), true);
    assert.equal(verifyWebhook(secret, Buffer.from(body), header, at), true);
    assert.equal(verifyWebhook(webhookSigningKey(secret), body, header, at), true);
  });

  it('rejects a tampered body, a tampered timestamp, a tampered signature', () => {
    assert.equal(verifyWebhook(secret, body.replace('completed', 'c0mpleted'), header, at), false);
    assert.equal(verifyWebhook(secret, `${body} `, header, at), false);
    assert.equal(verifyWebhook(secret, body, header.replace(`t=${t}`, `t=${t + 1}`), at), false);
    const flipped = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
    assert.equal(verifyWebhook(secret, body, flipped, at), false);
  });

  it('rejects another list secret', () => {
    const other = webhookSecretFor(server, 'lst_other');
    assert.equal(verifyWebhook(other, body, header, at), false);
  });

  it('rejects stale and far-future timestamps, within the tolerance accepts', () => {
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: t + 300 }), true);
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: t - 300 }), true);
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: t + 301 }), false);
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: t - 301 }), false);
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: t + 3600, toleranceSeconds: 3600 }), true);
    // Default clock: a signature of a year ago is stale, one of now is not.
    assert.equal(verifyWebhook(secret, body, header), false);
    const fresh = signWebhook(secret, body, Math.floor(Date.now() / 1000));
    assert.equal(verifyWebhook(secret, body, fresh), true);
  });

  it('accepts any of several v1 values (rotation), and several secrets on the receiving side', () => {
    const old = webhookSecretFor(Buffer.alloc(32, 1), 'lst_0123456789abcdef');
    const both = signWebhook([old, secret], body, t);
    assert.equal(both.split(',').length, 3);
    assert.equal(verifyWebhook(secret, body, both, at), true);
    assert.equal(verifyWebhook(old, body, both, at), true);
    assert.equal(verifyWebhook([webhookSecretFor(server, 'x'), secret], body, header, at), true);
    assert.equal(verifyWebhook([webhookSecretFor(server, 'x')], body, header, at), false);
  });

  it('skips unknown keys and a bad v1 beside a good one; tolerates spaces', () => {
    const v1 = header.split('v1=')[1];
    assert.equal(verifyWebhook(secret, body, `t=${t},v0=abc,v1=zz,v1=${v1},v2=whatever`, at), true);
    assert.equal(verifyWebhook(secret, body, `t=${t}, v1=${v1}`, at), true);
    assert.equal(verifyWebhook(secret, body, `v1=${v1},t=${t}`, at), true);
  });

  it('never throws on malformed headers or secrets; answers false', () => {
    const v1 = header.split('v1=')[1];
    const headers: unknown[] = [
      undefined,
      null,
      42,
      ['t=1'],
      {},
      '',
      ',',
      '=',
      't=',
      `t=${t}`,
      `v1=${v1}`,
      `t=,v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=-${t},v1=${v1}`,
      `t=${t}.5,v1=${v1}`,
      `t=1e9,v1=${v1}`,
      `t=${'9'.repeat(400)},v1=${v1}`,
      `t=${t},t=${t + 1},v1=${v1}`,
      `t=${t},v1=${v1?.toUpperCase()}`,
      `t=${t},v1=${v1?.slice(2)}`,
      `t=${t},v1=${v1}00`,
      `t=${t},v1=`,
      `t=${t},v1`,
      `${header}`.repeat(1000),
      '\u0000\uffff\ud800',
    ];
    for (const bad of headers) {
      assert.equal(verifyWebhook(secret, body, bad, at), false, String(bad).slice(0, 80));
    }
    for (const badSecret of ['', 'whsec_nothex', [], [''], 'x'.repeat(10_000)]) {
      assert.equal(verifyWebhook(badSecret as never, body, header, at), false);
    }
    assert.equal(verifyWebhook(secret, body, header, { nowSeconds: Number.NaN }), false);
  });
});

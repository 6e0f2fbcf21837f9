import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateApiKey, hashApiKey, hashesEqual, looksLikeApiKey } from '../../src/accounts/api-keys.ts';

describe('API keys', () => {
  it('are recognisable, random, and stored only as a hash and a short prefix', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    assert.match(a.key, /^mv_live_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.key, b.key);
    assert.equal(a.keyHash, hashApiKey(a.key));
    assert.match(a.keyHash, /^[0-9a-f]{64}$/);
    assert.ok(!a.keyHash.includes(a.key.slice(8)));
    assert.equal(a.displayPrefix, a.key.slice(0, 14));
    assert.ok(looksLikeApiKey(a.key));
  });

  it('compares hashes in constant time and rejects anything else', () => {
    const { keyHash } = generateApiKey();
    assert.equal(hashesEqual(keyHash, keyHash), true);
    assert.equal(hashesEqual(keyHash, hashApiKey('mv_live_other')), false);
    assert.equal(hashesEqual(keyHash, keyHash.slice(0, 62)), false);
    assert.equal(hashesEqual('', ''), false);
  });

  it('shape check refuses other strings before any lookup', () => {
    for (const candidate of [
      '',
      'mv_live_',
      `mv_test_${'a'.repeat(43)}`,
      `mv_live_${'a'.repeat(44)}`,
      `mv_live_${'é'.repeat(43)}`,
    ]) {
      assert.equal(looksLikeApiKey(candidate), false, candidate);
    }
  });
});

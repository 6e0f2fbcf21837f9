/**
 * Sealed credentials: AES-256-GCM under a key derived from the service's secret, bound to the
 * integration's id. Anything altered, moved to another integration or opened under another secret
 * refuses to open; the sealed form never contains the plain text.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { CredentialVault } from '../../src/integrations/credentials.ts';

const SECRET = randomBytes(32);
const KEY = '0123456789abcdef0123456789abcdef-us21';

test('seals and opens; each seal is different; the plain key is nowhere in it', () => {
  const vault = new CredentialVault(SECRET);
  const first = vault.seal(KEY, 'int_1');
  const second = vault.seal(KEY, 'int_1');
  assert.notEqual(first, second, 'a fresh nonce each time');
  assert.equal(vault.open(first, 'int_1'), KEY);
  assert.equal(new CredentialVault(Buffer.from(SECRET)).open(second, 'int_1'), KEY);
  for (const sealed of [first, second]) {
    assert.ok(!sealed.includes(KEY) && !sealed.includes('0123456789abcdef'));
    assert.ok(!Buffer.from(sealed).includes(Buffer.from(KEY).toString('base64').slice(0, 16)));
  }
});

test('another integration, another secret, or any change refuses to open', () => {
  const vault = new CredentialVault(SECRET);
  const sealed = vault.seal(KEY, 'int_1');
  assert.throws(() => vault.open(sealed, 'int_2'));
  assert.throws(() => new CredentialVault(randomBytes(32)).open(sealed, 'int_1'));
  const [version, nonce, body, tag] = sealed.split('.') as [string, string, string, string];
  const flip = (part: string) => {
    const bytes = Buffer.from(part, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    return bytes.toString('base64url');
  };
  assert.throws(() => vault.open([version, flip(nonce), body, tag].join('.'), 'int_1'));
  assert.throws(() => vault.open([version, nonce, flip(body), tag].join('.'), 'int_1'));
  assert.throws(() => vault.open([version, nonce, body, flip(tag)].join('.'), 'int_1'));
  // A tag cut short must not be accepted (GCM would otherwise check only its first bytes).
  const short = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
  assert.throws(() => vault.open([version, nonce, body, short].join('.'), 'int_1'));
  assert.throws(() => vault.open(`v2.${nonce}.${body}.${tag}`, 'int_1'));
  assert.throws(() => vault.open('not sealed', 'int_1'));
});

test('a secret shorter than 32 bytes is refused', () => {
  assert.throws(() => new CredentialVault(randomBytes(16)), RangeError);
});

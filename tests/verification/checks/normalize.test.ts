import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toASCII } from 'tr46';
import { normalizeAddress, normalizeAddressUntrimmed } from '../../../src/verification/checks/normalize.ts';

describe('normalizeAddress', () => {
  test('trims ASCII and Unicode white space, and echoes the trimmed address', () => {
    const normalized = normalizeAddress(' \t\r\n\u00a0\u3000\u2003\ufeffJane.Doe@Example.com\u2028\u00a0 ');
    assert.equal(normalized.email, 'Jane.Doe@Example.com');
    assert.equal(normalized.localPart, 'Jane.Doe');
  });

  test('keeps the case of the local part and lower-cases the domain', () => {
    assert.deepEqual(normalizeAddress('Jane.Doe@EXAMPLE.Com'), {
      email: 'Jane.Doe@EXAMPLE.Com',
      localPart: 'Jane.Doe',
      rawDomain: 'EXAMPLE.Com',
      asciiDomain: 'example.com',
      unicodeDomain: 'example.com',
    });
  });

  test('splits at the last @, so a quoted @ stays in the local part', () => {
    const normalized = normalizeAddress('"a@b"@example.com');
    assert.equal(normalized.localPart, '"a@b"');
    assert.equal(normalized.rawDomain, 'example.com');
  });

  test('without an @ the whole string is the local part and there is no domain', () => {
    assert.deepEqual(normalizeAddress('jane.example.com'), {
      email: 'jane.example.com',
      localPart: 'jane.example.com',
      rawDomain: '',
      asciiDomain: null,
      unicodeDomain: null,
    });
    assert.equal(normalizeAddress('jane@').asciiDomain, null);
  });

  test('composes to NFC, but echoes the address as submitted', () => {
    const decomposed = 'Jose\u0301@bu\u0308cher.de';
    const normalized = normalizeAddress(decomposed);
    assert.equal(normalized.email, decomposed);
    assert.equal(normalized.localPart, 'Jos\u00e9');
    assert.equal(normalized.rawDomain, 'b\u00fccher.de');
    assert.equal(normalized.asciiDomain, 'xn--bcher-kva.de');
    assert.equal(normalized.unicodeDomain, 'b\u00fccher.de');
  });

  test('converts internationalized domains to A-labels and back for display', () => {
    const normalized = normalizeAddress('jeff@臺網中心.TW');
    assert.equal(normalized.asciiDomain, 'xn--fiqq24b10vi0d.tw');
    assert.equal(normalized.unicodeDomain, '臺網中心.tw');
    assert.equal(normalizeAddress('x@XN--MNCHEN-3YA.de').unicodeDomain, 'münchen.de');
  });

  test('maps as UTS-46 does: full-width letters, ideographic full stop, nontransitional ß', () => {
    assert.equal(normalizeAddress('a@ｇｍａｉｌ.com').asciiDomain, 'gmail.com');
    assert.equal(normalizeAddress('a@example。com').asciiDomain, 'example.com');
    // Transitional processing would turn faß.de into fass.de, another domain.
    assert.equal(normalizeAddress('a@faß.de').asciiDomain, 'xn--fa-hia.de');
  });

  test('gives a null ASCII domain when IDNA processing fails', () => {
    for (const domain of [
      'xn--example.com', // invalid Punycode
      '-example.com',
      'example-.com',
      'ab--cd.com', // hyphens in 3rd and 4th positions
      'exa_mple.com',
      'example.com.',
      'example..com',
      `${'a'.repeat(64)}.com`,
      'a\u200d.com', // ZWJ outside a joining context
      '\ud800.com',
      '⒈example.com',
      'example .com',
    ]) {
      const normalized = normalizeAddress(`a@${domain}`);
      assert.equal(normalized.asciiDomain, null, domain);
      assert.equal(normalized.unicodeDomain, null, domain);
      assert.equal(normalized.rawDomain, domain);
    }
  });

  test('lower-cases address literals without IDNA processing', () => {
    assert.equal(normalizeAddress('a@[IPv6:2001:DB8::1]').asciiDomain, '[ipv6:2001:db8::1]');
    assert.equal(normalizeAddress('a@[192.0.2.1]').unicodeDomain, '[192.0.2.1]');
    assert.equal(normalizeAddress('a@[Unclosed').asciiDomain, '[unclosed');
    assert.equal(normalizeAddress('a@[ｇ]').asciiDomain, null);
  });

  test('normalizeAddressUntrimmed keeps surrounding white space', () => {
    const normalized = normalizeAddressUntrimmed(' jane@example.com ');
    assert.equal(normalized.email, ' jane@example.com ');
    assert.equal(normalized.localPart, ' jane');
    assert.equal(normalized.asciiDomain, null);
    assert.equal(normalizeAddressUntrimmed('jane@example.com\n').asciiDomain, null);
  });

  test('the ASCII fast path gives what tr46 gives', () => {
    // Random ASCII domains built from the characters that matter to the LDH rules.
    const alphabet = 'abcxnAXN019-._.-';
    let seed = 0x2545f491;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x100000000;
    };
    const options = {
      transitionalProcessing: false,
      useSTD3ASCIIRules: true,
      verifyDNSLength: true,
      checkHyphens: true,
      checkBidi: true,
      checkJoiners: true,
    };
    const samples = ['xn--mnchen-3ya.de', 'XN--MNCHEN-3YA.DE', 'a.b', '0.0.0.256', `${'a'.repeat(63)}.b`];
    for (let i = 0; i < 20000; i++) {
      const length = 1 + Math.floor(random() * (random() < 0.05 ? 300 : 12));
      let domain = '';
      for (let j = 0; j < length; j++) domain += alphabet[Math.floor(random() * alphabet.length)];
      samples.push(domain);
    }
    let accepted = 0;
    for (const domain of samples) {
      const expected = toASCII(domain, options);
      if (expected !== null) accepted++;
      assert.equal(normalizeAddress(`a@${domain}`).asciiDomain, expected, JSON.stringify(domain));
    }
    assert.ok(accepted > 1000, `only ${accepted} random domains were valid: the sample proves little`);
  });

  test('IDNA results are memoized without changing them, and the memo stays bounded', () => {
    const first = normalizeAddress('a@Bücher.de');
    // Enough distinct names to push bücher.de out of the memo, then ask again.
    for (let i = 0; i < 10_050; i++) normalizeAddress(`a@bücher${i}.de`);
    const again = normalizeAddress('a@Bücher.de');
    assert.deepEqual(again, first);
    assert.equal(again.asciiDomain, 'xn--bcher-kva.de');
    assert.equal(normalizeAddress('a@bücher10049.de').unicodeDomain, 'bücher10049.de');
    assert.equal(normalizeAddress(`a@${'ü'.repeat(300)}.de`).asciiDomain, null);
  });

  test('never throws on hostile input, and stays fast', () => {
    const hostile = [
      '\ud800@example.com',
      'a@\udc00',
      '\u0000@\u0000',
      'a'.repeat(1 << 20),
      `${'a'.repeat(1 << 20)}@example.com`,
      `a@${'é'.repeat(1 << 20)}`,
      `a@${'a.'.repeat(1 << 19)}com`,
      '@'.repeat(100000),
      '"'.repeat(100000),
    ];
    for (const input of hostile) {
      const started = performance.now();
      const normalized = normalizeAddress(input);
      const elapsed = performance.now() - started;
      assert.equal(typeof normalized.localPart, 'string');
      // A hang guard, far above the few ms it takes.
      assert.ok(elapsed < 5000, `${elapsed.toFixed(1)} ms for ${JSON.stringify(input.slice(0, 20))}…`);
    }
  });
});

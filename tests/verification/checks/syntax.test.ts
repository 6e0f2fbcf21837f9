import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeAddress } from '../../../src/verification/checks/normalize.ts';
import { checkAddressSyntax, checkSyntax } from '../../../src/verification/checks/syntax.ts';
import type { SyntaxCheck, SyntaxErrorCode } from '../../../src/verification/report.ts';

function check(address: string): SyntaxCheck {
  return checkSyntax(normalizeAddress(address));
}

function assertValid(address: string, flags: Partial<Record<'quoted' | 'literal' | 'intl', boolean>> = {}) {
  const result = check(address);
  assert.deepEqual(
    result,
    {
      valid: true,
      quotedLocalPart: flags.quoted ?? false,
      addressLiteral: flags.literal ?? false,
      internationalized: flags.intl ?? false,
    },
    JSON.stringify(address),
  );
}

function assertInvalid(address: string, error: SyntaxErrorCode) {
  const result = check(address);
  assert.equal(result.valid, false, JSON.stringify(address));
  if (result.valid) return;
  assert.equal(result.error, error, `${JSON.stringify(address)}: ${result.message}`);
  assert.ok(result.message.length > 10);
}

describe('checkSyntax: common addresses', () => {
  test('plain dot-atom addresses are valid with no flags', () => {
    for (const address of [
      'john.smith@gmail.com',
      'a.b+tag@company.co.uk',
      "o'brien@example.ie",
      "!#$%&'*+-/=?^_`{|}~@example.com",
      'x@x.au',
      'test@io', // single-label domain: RFC 5321 allows it, DNS decides
      'test@iana.123', // numeric top-level label, valid in the isemail mailbox view
      'xn--test@example.com', // a local part is not IDNA
    ]) {
      assertValid(address);
    }
  });

  test('the pipeline trims; checkAddressSyntax does not', () => {
    assertValid('  jane@example.com\t');
    const raw = checkAddressSyntax('  jane@example.com\t');
    assert.equal(raw.valid, false);
    assert.equal(checkAddressSyntax('jane@example.com').valid, true);
  });

  test('internationalized local parts and domains', () => {
    assertValid('jeff@臺網中心.tw');
    assertValid('葉士豪@臺網中心.台灣', { intl: true });
    assertValid('ñoñó@example.tld', { intl: true });
    assertValid('чебурашкаящик-с-апельсинами.рф@example.tld', { intl: true });
    assertValid('😆@example.com', { intl: true });
    assertValid('＠@fullwidth.at', { intl: true });
    assertValid('"quoted λ"@example.com', { quoted: true, intl: true });
  });
});

describe('checkSyntax: local part', () => {
  test('dots may not start, end or double', () => {
    for (const address of ['.a@example.com', 'a.@example.com', 'a..b@example.com', '.@example.com']) {
      assertInvalid(address, 'invalid_local_part');
    }
  });

  test('specials, spaces, comments and bare backslashes need quotes', () => {
    for (const address of [
      'a b@example.com',
      'a,b@example.com',
      'a(comment)@example.com',
      '(comment)a@example.com',
      'a\\@b@example.com',
      'Fred\\ Bloggs@example.com',
      '[a]@example.com',
      'a"b"@example.com',
      'a:b@example.com',
      'a;b@example.com',
      'a<b@example.com',
    ]) {
      assertInvalid(address, 'invalid_local_part');
    }
  });

  test('quoted strings: qtext, quoted pairs, and nothing outside the quotes', () => {
    assertValid('"john doe"@example.com', { quoted: true });
    assertValid('""@example.com', { quoted: true });
    assertValid('"a@b"@example.com', { quoted: true });
    assertValid('"a..b"@example.com', { quoted: true });
    assertValid('"\\""@example.com', { quoted: true });
    assertValid('"\\\\"@example.com', { quoted: true });
    assertValid('"Joe.\\\\Blow"@example.com', { quoted: true });
    for (const address of [
      '"unclosed@example.com',
      '"\\"@example.com', // the escaped quote leaves the string open
      '"""@example.com',
      '"a"b@example.com',
      '"a".b@example.com',
      'a."b"@example.com',
      '"a\u0000"@example.com',
      '"a\\\u0000"@example.com',
      '"a\nb"@example.com',
      '"a\\\u007f"@example.com',
      '"a\\©"@example.com', // quoted-pairSMTP is ASCII only
    ]) {
      assertInvalid(address, 'invalid_local_part');
    }
  });

  test('control, invisible, unassigned and broken code points are rejected', () => {
    for (const local of [
      '\ud800', // lone high surrogate
      'a\udc00b', // lone low surrogate
      'a\ufffd', // replacement character: bad input upstream
      'a\u0000',
      'a\u007f',
      'a\u0085', // C1 control
      'a\u00a0b', // no-break space
      'a\u200bb', // zero-width space
      '\u202eevil', // right-to-left override
      'a\ue000', // private use
      'a\ufdef', // noncharacter
      'a\u{10fdef}', // private use, plane 16
      'a\u0378', // unassigned
      '\u0300a', // leading combining mark
      '"a\u2028b"', // line separator, even quoted
    ]) {
      assertInvalid(`${local}@example.com`, 'invalid_local_part');
    }
  });
});

describe('checkSyntax: domain', () => {
  test('host names: LDH labels, no edge hyphens, no empty labels', () => {
    assertValid('a@mason-dixon.com');
    assertValid('a@c--n.com');
    assertValid('a@3com.com');
    for (const domain of ['-a.com', 'a-.com', 'a..com', '.a.com', 'a.com.', 'a_b.com', 'a!.com', 'a/b.com']) {
      assertInvalid(`a@${domain}`, 'invalid_domain');
    }
    assertInvalid('a@ab--cd.com', 'invalid_domain');
  });

  test('label and domain length limits', () => {
    assertValid(`a@${'b'.repeat(63)}.com`);
    assertInvalid(`a@${'b'.repeat(64)}.com`, 'label_too_long');
    assertInvalid(
      `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}`,
      'domain_too_long',
    );
    assertInvalid(`a@${'ü'.repeat(70)}.com`, 'label_too_long');
  });

  test('domains that IDNA refuses', () => {
    assertInvalid('a@xn--example.com', 'idna_failed');
    assertInvalid('a@⒈example.com', 'idna_failed');
    assertInvalid('a@exa\u200dmple.com', 'idna_failed');
  });

  test('no @, no local part, no domain, empty', () => {
    assertInvalid('', 'empty');
    assertInvalid('   ', 'empty');
    assertInvalid('jane.example.com', 'no_at_sign');
    assertInvalid('jane＠example.com', 'no_at_sign');
    assertInvalid('@example.com', 'no_local_part');
    assertInvalid('@', 'no_local_part');
    assertInvalid('jane@', 'no_domain');
    assertInvalid('a@b@example.com', 'invalid_local_part');
  });
});

describe('checkSyntax: address literals', () => {
  test('IPv4 literals', () => {
    assertValid('a@[192.0.2.1]', { literal: true });
    assertValid('a@[255.255.255.255]', { literal: true });
    for (const literal of [
      '[256.0.0.1]',
      '[1.2.3]',
      '[1.2.3.4.5]',
      '[.1.2.3.4]',
      '[1..2.3]',
      '[1.2.3.4',
      '[\\1.2.3.4]',
    ]) {
      assertInvalid(`a@${literal}`, 'invalid_address_literal');
    }
    assertInvalid('a@x[1.2.3.4]', 'invalid_domain');
  });

  test('IPv6 literals, with the :: rules and IPv4 tails', () => {
    for (const literal of [
      'IPv6:2001:db8:0:0:0:0:0:1',
      'IPv6:2001:DB8::1',
      'ipv6:::',
      'IPv6:::1',
      'IPv6:1::',
      'IPv6:::ffff:192.0.2.1',
      'IPv6:1:2:3:4:5:6:192.0.2.1',
      'IPv6:1:2:3:4::192.0.2.1',
      'IPv6:1:2:3:4:5:6::8', // :: for a single group: deprecated, accepted (isemail)
      'IPv6:1:2:3::5:192.0.2.1',
    ]) {
      assertValid(`a@[${literal}]`, { literal: true });
    }
    for (const literal of [
      'IPv6:1:2:3:4:5:6:7',
      'IPv6:1:2:3:4:5:6:7:8:9',
      'IPv6:1:2:3:4:5:6::7:8',
      'IPv6::2:3:4:5:6:7:8',
      'IPv6:1:2:3:4:5:6:7:',
      'IPv6:1::2::3',
      'IPv6:1:::2',
      'IPv6::::',
      'IPv6::',
      'IPv6:12345::1',
      'IPv6:g::1',
      'IPv6:1:2:3:4:5:192.0.2.1',
      'IPv6:1:2:3:4:5:6::192.0.2.1',
      'IPv6::192.0.2.1',
      'IPv6:::192.0.2',
      'IPv6:::192.0.2.256',
      'IPv6:',
    ]) {
      assertInvalid(`a@[${literal}]`, 'invalid_address_literal');
    }
  });

  test('general address literals follow the grammar tag:dcontent', () => {
    assertValid('a@[x-tag:some-content]', { literal: true });
    for (const literal of [
      '[tag:]',
      '[:content]',
      '[tag-:content]',
      '[tag:two words]',
      '[tag:a[b]',
      '[no-colon]',
    ]) {
      assertInvalid(`a@${literal}`, 'invalid_address_literal');
    }
    assertInvalid('a@[tag:ü]', 'invalid_address_literal');
  });
});

describe('checkSyntax: lengths in octets', () => {
  test('local part at most 64 octets, counted in UTF-8', () => {
    assertValid(`${'a'.repeat(64)}@example.com`);
    assertInvalid(`${'a'.repeat(65)}@example.com`, 'local_part_too_long');
    assertValid(`${'é'.repeat(32)}@example.com`, { intl: true });
    assertInvalid(`${'é'.repeat(33)}@example.com`, 'local_part_too_long');
    assertInvalid(`${'😆'.repeat(17)}@example.com`, 'local_part_too_long');
    assertInvalid(`"${'a'.repeat(63)}"@example.com`, 'local_part_too_long');
  });

  test('whole address at most 254 octets, domain counted in ASCII', () => {
    const domain253 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`;
    assert.equal(domain253.length, 253);
    const domain189 = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    assertValid(`${'a'.repeat(64)}@${domain189}`); // 254
    assertInvalid(`${'a'.repeat(65 - 1)}@${domain189}x`, 'address_too_long'); // 255
    assertInvalid(`a@${domain253}`, 'address_too_long');
    // The domain counts in its A-label form, which every server takes: here 46 octets, 80 in UTF-8.
    assertValid(`${'a'.repeat(64)}@${'ü'.repeat(40)}.${'c'.repeat(63)}.${'d'.repeat(63)}`);
    // 臺網中心臺網中心臺網中心 is xn--fiqaa021pbab9474ccac760idad: 31 octets, so 255 in all.
    assertInvalid(
      `${'a'.repeat(64)}@${'臺網中心'.repeat(3)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(30)}`,
      'address_too_long',
    );
  });
});

describe('checkSyntax: hostile input', () => {
  const MEGABYTE = 1 << 20;
  const hostile: [string, string][] = [
    ['lone surrogate', '\uD800@example.com'],
    ['lone surrogate in the domain', 'a@\uDFFF.com'],
    ['NUL', 'a\u0000b@exa\u0000mple.com'],
    ['control characters', '\u0001\u0002\u001b[31m@example.com'],
    ['1 MB local part', `${'a'.repeat(MEGABYTE)}@example.com`],
    ['1 MB without @', 'a'.repeat(MEGABYTE)],
    ['1 MB domain', `a@${'b'.repeat(MEGABYTE)}`],
    ['1 MB of labels', `a@${'b.'.repeat(MEGABYTE / 2)}com`],
    ['1 MB non-ASCII domain', `a@${'ü'.repeat(MEGABYTE)}`],
    ['1 MB non-ASCII local part', `${'ü'.repeat(MEGABYTE)}@example.com`],
    ['100k @ signs', '@'.repeat(100000)],
    ['100k @ between letters', 'a@'.repeat(100000)],
    ['deeply nested quotes', `${'"'.repeat(100000)}@example.com`],
    ['nested escaped quotes', `"${'\\"'.repeat(100000)}"@example.com`],
    ['deeply nested comments', `${'('.repeat(100000)}a${')'.repeat(100000)}@example.com`],
    ['nested brackets', `a@${'['.repeat(100000)}${']'.repeat(100000)}`],
    ['long IPv6 literal', `a@[IPv6:${'1:'.repeat(100000)}1]`],
    ['dots', `${'.'.repeat(MEGABYTE)}@${'.'.repeat(MEGABYTE)}`],
  ];
  for (const [name, input] of hostile) {
    test(`${name}: an invalid verdict, quickly, without throwing`, () => {
      const started = performance.now();
      const trimmed = check(input);
      const raw = checkAddressSyntax(input);
      const elapsed = performance.now() - started;
      assert.equal(trimmed.valid, false);
      assert.equal(raw.valid, false);
      // A hang guard against catastrophic backtracking, far above the ~8 ms it takes.
      assert.ok(elapsed < 5000, `${elapsed.toFixed(1)} ms`);
    });
  }
});

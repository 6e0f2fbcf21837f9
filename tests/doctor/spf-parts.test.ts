/** The SPF evaluator's pure parts: addresses and networks, record syntax, macros. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inNetwork, ipText, parseIp, reversedName } from '../../src/mail-auth/spf/ip-address.ts';
import { expandMacros } from '../../src/mail-auth/spf/macro.ts';
import { parseSpfRecord, pickSpfRecord } from '../../src/mail-auth/spf/record.ts';

describe('IP addresses', () => {
  it('parses IPv4, IPv6 (compressed, with a dotted tail) and maps ::ffff: to IPv4', () => {
    assert.equal(ipText(parseIp('192.0.2.1')!), '192.0.2.1');
    assert.equal(ipText(parseIp('2001:db8::1')!), '2001:db8:0:0:0:0:0:1');
    assert.equal(ipText(parseIp('::ffff:192.0.2.9')!), '192.0.2.9');
    assert.equal(parseIp('::ffff:192.0.2.9')!.family, 4);
    assert.equal(ipText(parseIp('64:ff9b::192.0.2.1')!), '64:ff9b:0:0:0:0:c000:201');
    for (const bad of [
      '256.1.1.1',
      '1.2.3',
      '2001:db8::1::2',
      'gmail.com',
      '1:2:3:4:5:6:7:8:9',
      '01.2.3.4',
    ]) {
      assert.equal(parseIp(bad), null, bad);
    }
  });

  it('compares networks within one family only', () => {
    const net = parseIp('192.0.2.0')!;
    assert.equal(inNetwork(parseIp('192.0.2.255')!, net, 24), true);
    assert.equal(inNetwork(parseIp('192.0.3.0')!, net, 24), false);
    assert.equal(inNetwork(parseIp('10.9.9.9')!, net, 0), true);
    assert.equal(inNetwork(parseIp('2001:db8::1')!, parseIp('2001:db8::')!, 32), true);
    assert.equal(inNetwork(parseIp('2001:db9::1')!, parseIp('2001:db8::')!, 32), false);
    assert.equal(inNetwork(parseIp('::1')!, net, 0), false);
  });

  it('names addresses for blocklists as RFC 5782 does', () => {
    assert.equal(reversedName(parseIp('192.0.2.99')!), '99.2.0.192');
    assert.equal(
      reversedName(parseIp('2001:db8:1:2:3:4:567:89ab')!),
      'b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2',
    );
  });
});

describe('SPF records', () => {
  it('picks the one v=spf1 record among TXT strings', () => {
    assert.deepEqual(pickSpfRecord(['hello', 'v=spf1 -all']), { kind: 'one', text: 'v=spf1 -all' });
    assert.deepEqual(pickSpfRecord(['v=spf10 -all', 'spf1']), { kind: 'none' });
    assert.deepEqual(pickSpfRecord(['v=spf1', 'V=SPF1 +all']), { kind: 'many' });
  });

  it('reads mechanisms with qualifiers and prefixes, and the redirect modifier', () => {
    const record = parseSpfRecord(
      'v=spf1 ip4:192.0.2.0/24 ~a:mail.example.com/28//64 mx ip6:2001:db8::/32 include:_spf.example.net exp=why.example.com redirect=example.org',
    );
    assert.ok(typeof record !== 'string');
    assert.deepEqual(
      record.mechanisms.map((m) => [m.kind, m.qualifier]),
      [
        ['ip4', '+'],
        ['a', '~'],
        ['mx', '+'],
        ['ip6', '+'],
        ['include', '+'],
      ],
    );
    assert.deepEqual(record.mechanisms[1], {
      kind: 'a',
      qualifier: '~',
      domain: 'mail.example.com',
      cidr4: 28,
      cidr6: 64,
      text: '~a:mail.example.com/28//64',
    });
    assert.deepEqual(record.mechanisms[3], {
      kind: 'ip6',
      qualifier: '+',
      network: '2001:db8::',
      prefix: 32,
      text: 'ip6:2001:db8::/32',
    });
    assert.equal(record.redirect, 'example.org');
  });

  it('refuses what it cannot read', () => {
    for (const text of [
      'v=spf1 ip4:192.0.2.0/33',
      'v=spf1 all:x',
      'v=spf1 include',
      'v=spf1 redirect=a redirect=b',
      'v=spf1 foo',
    ]) {
      assert.equal(typeof parseSpfRecord(text), 'string', text);
    }
  });
});

describe('SPF macros', () => {
  const context = {
    ip: parseIp('192.0.2.3')!,
    domain: 'example.com',
    sender: 'strong-bad@email.example.com',
    helo: 'mx.example.org',
  };
  it('expands RFC 7208 §7.4 examples', () => {
    assert.deepEqual(expandMacros('%{s}', context), { name: 'strong-bad@email.example.com' });
    assert.deepEqual(expandMacros('%{o}', context), { name: 'email.example.com' });
    assert.deepEqual(expandMacros('%{d4}', context), { name: 'example.com' });
    assert.deepEqual(expandMacros('%{d2}', context), { name: 'example.com' });
    assert.deepEqual(expandMacros('%{d1}', context), { name: 'com' });
    assert.deepEqual(expandMacros('%{dr}', context), { name: 'com.example' });
    assert.deepEqual(expandMacros('%{l-}', context), { name: 'strong.bad' });
    assert.deepEqual(expandMacros('%{lr-}', context), { name: 'bad.strong' });
    assert.deepEqual(expandMacros('%{ir}.%{v}._spf.%{d2}', context), {
      name: '3.2.0.192.in-addr._spf.example.com',
    });
  });

  it('refuses a malformed macro', () => {
    assert.equal(typeof expandMacros('%{x}', context), 'string');
    assert.equal(typeof expandMacros('%{d', context), 'string');
    assert.equal(typeof expandMacros('%a', context), 'string');
  });
});

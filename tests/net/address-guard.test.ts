import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAddressLiteralDomain, probeRefusal } from '../../src/net/address-guard.ts';

/** [address, expected refusal or null when it may be probed] */
const TABLE: [string, string | null][] = [
  // Public unicast: probed.
  ['8.8.8.8', null],
  ['142.250.27.26', null],
  ['1.1.1.1', null],
  ['223.255.255.255', null],
  ['100.63.255.255', null],
  ['100.128.0.0', null],
  ['172.15.255.255', null],
  ['172.32.0.0', null],
  ['192.169.0.1', null],
  ['198.17.255.255', null],
  ['198.20.0.0', null],
  ['192.175.48.1', null], // AS112 anycast: globally reachable
  ['2a00:1450:4013:c01::1a', null],
  ['2607:f8b0:4004:c07::1b', null],
  ['2001:4860:4860::8888', null],
  ['2001:4:112::1', null],
  ['::ffff:8.8.8.8', null],
  ['::FFFF:8.8.8.8', null],
  ['::ffff:808:808', null],
  ['64:ff9b::8.8.8.8', null],
  ['2002:0808:0808::1', null],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', null], // Teredo client 8.8.8.8
  // IPv4 special ranges.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link_local'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  // IPv6 special ranges.
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link_local'],
  ['FE80::abcd:1', 'link_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['fec0::1', 'site_local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::25', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'reserved'],
  ['2001:10::1', 'reserved'],
  ['2001:20::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['64:ff9b:1::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['1::1', 'reserved'],
  ['e000::1', 'reserved'],
  // IPv4 carried inside IPv6.
  ['::ffff:127.0.0.1', 'ipv4_mapped:loopback'],
  ['::ffff:7f00:1', 'ipv4_mapped:loopback'],
  ['::ffff:10.1.2.3', 'ipv4_mapped:private'],
  ['::ffff:169.254.169.254', 'ipv4_mapped:link_local'],
  ['0:0:0:0:0:ffff:c0a8:0101', 'ipv4_mapped:private'],
  ['::127.0.0.1', 'ipv4_compatible:loopback'],
  ['::10.0.0.1', 'ipv4_compatible:private'],
  ['::8.8.8.8', 'reserved'],
  ['::ffff:0:127.0.0.1', 'ipv4_translated:loopback'],
  ['64:ff9b::127.0.0.1', 'nat64:loopback'],
  ['64:ff9b::a9fe:a9fe', 'nat64:link_local'],
  ['2002:c0a8:0101::1', '6to4:private'],
  ['2002:7f00:0001::', '6to4:loopback'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo:private'], // client 10.0.0.1
  // Not canonical: invalid, however a resolver might read them.
  ['127.1', 'invalid'],
  ['0x7f.1', 'invalid'],
  ['0x7f000001', 'invalid'],
  ['2130706433', 'invalid'],
  ['017700000001', 'invalid'],
  ['010.0.0.1', 'invalid'],
  ['127.0.0.01', 'invalid'],
  ['256.1.1.1', 'invalid'],
  ['1.2.3', 'invalid'],
  ['1.2.3.4.5', 'invalid'],
  ['1.2.3.4.', 'invalid'],
  [' 1.2.3.4', 'invalid'],
  ['1.2.3.4 ', 'invalid'],
  ['١.٢.٣.٤', 'invalid'],
  ['[127.0.0.1]', 'invalid'],
  ['[::1]', 'invalid'],
  ['fe80::1%eth0', 'invalid'],
  ['::ffff:127.1', 'invalid'],
  ['::ffff:0x7f.0.0.1', 'invalid'],
  ['::ffff:1.2.3.04', 'invalid'],
  ['1::2::3', 'invalid'],
  [':::', 'invalid'],
  [':1', 'invalid'],
  ['1:', 'invalid'],
  ['1:2:3:4:5:6:7:8:9', 'invalid'],
  ['1:2:3:4:5:6:7::8', 'invalid'],
  ['12345::1', 'invalid'],
  ['g::1', 'invalid'],
  ['::1.2.3.4:5', 'invalid'],
  ['localhost', 'invalid'],
  ['', 'invalid'],
  ['\u0000', 'invalid'],
  ['\ud800', 'invalid'],
];

describe('probeRefusal', () => {
  for (const [address, expected] of TABLE) {
    test(`${JSON.stringify(address)} → ${expected ?? 'may be probed'}`, () => {
      assert.equal(probeRefusal(address), expected);
    });
  }

  test('1:2:3:4:5:6:1.2.3.4 is a full IPv6 address with an IPv4 tail', () => {
    // 0001::/16 is outside 2000::/3, so parsed correctly it is refused as reserved, not invalid.
    assert.equal(probeRefusal('1:2:3:4:5:6:1.2.3.4'), 'reserved');
  });

  test('never throws on hostile input', () => {
    for (const input of [
      'x'.repeat(1_000_000),
      ':'.repeat(1000),
      `${'1:'.repeat(500)}1`,
      null,
      undefined,
      42,
    ]) {
      assert.equal(probeRefusal(input as string), 'invalid');
    }
  });
});

describe('isAddressLiteralDomain', () => {
  const literals = [
    '[10.0.0.1]',
    '[ipv6:::1]',
    '[IPv6:2001:db8::1]',
    '127.0.0.1',
    '127.0.0.1.',
    '8.8.8.8',
    '127.1',
    '0x7f.1',
    '2130706433',
    'mx.example.123',
    '::1',
    'example.com]',
  ];
  const names = [
    'example.com',
    'gmail.com',
    'xn--bcher-kva.example',
    '123.example.com',
    '1e100.net',
    'mail.0x.example',
    'example.com.',
    '',
  ];
  for (const domain of literals) {
    test(`${JSON.stringify(domain)} is an address literal`, () =>
      assert.equal(isAddressLiteralDomain(domain), true));
  }
  for (const domain of names) {
    test(`${JSON.stringify(domain)} is a name`, () => assert.equal(isAddressLiteralDomain(domain), false));
  }
});

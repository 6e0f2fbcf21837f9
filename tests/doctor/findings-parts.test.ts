/**
 * Pure parts of the host check: the client address servers echo in their replies (real replies as
 * fixtures), blocklist return codes read from the data file, and mail-host entries.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { echoedAddress } from '../../src/doctor/checks/egress-address.ts';
import { isFullyQualified, parseTargets } from '../../src/doctor/settings.ts';
import { meaningOf } from '../../src/mail-auth/dnsbl.ts';

describe('the echoed client address', () => {
  it('is read from the first line of real EHLO replies', () => {
    assert.equal(
      echoedAddress('mx.google.com at your service, [203.0.113.5]\nSIZE 157286400\n8BITMIME'),
      '203.0.113.5',
    );
    assert.equal(
      echoedAddress('mx.google.com at your service, [2001:db8:1::5]\nSIZE 157286400'),
      '2001:db8:1:0:0:0:0:5',
    );
    assert.equal(
      echoedAddress('BL02EPF0001A0FC.mail.protection.outlook.com Hello [198.51.100.7]\nSIZE 49283072'),
      '198.51.100.7',
    );
    assert.equal(
      echoedAddress('mx.example.net Hello host.example.org [192.0.2.44]\nPIPELINING'),
      '192.0.2.44',
    );
    assert.equal(
      echoedAddress('mx.mailworld.test Nice to meet you, [IPv6:2001:db8::9]'),
      '2001:db8:0:0:0:0:0:9',
    );
  });

  it('is absent when the server does not echo it (Postfix), or only on a later line', () => {
    assert.equal(echoedAddress('mail.example.com\nPIPELINING\nSIZE 10240000'), null);
    assert.equal(echoedAddress('mail.example.com\nX-NOTE [192.0.2.1]'), null);
    assert.equal(echoedAddress('mail.example.com greets [not-an-address]'), null);
  });
});

describe('blocklist return codes', () => {
  it('names the Spamhaus list, and tells refusals and rewritten answers from listings', () => {
    assert.deepEqual(
      [meaningOf('zen.spamhaus.org', '127.0.0.2').list, meaningOf('zen.spamhaus.org', '127.0.0.3').list],
      ['SBL', 'CSS'],
    );
    assert.equal(meaningOf('zen.spamhaus.org', '127.0.0.6').list, 'XBL');
    assert.equal(meaningOf('ZEN.SPAMHAUS.ORG', '127.0.0.11').list, 'PBL');
    assert.equal(meaningOf('zen.spamhaus.org', '127.255.255.254').kind, 'refused');
    assert.equal(meaningOf('zen.spamhaus.org', '127.255.255.255').kind, 'refused');
    assert.equal(meaningOf('zen.spamhaus.org', '127.255.255.252').kind, 'error');
    assert.equal(meaningOf('bl.spamcop.net', '127.0.0.2').list, 'SpamCop');
    // Another zone: the usual code, an unnamed 127/8 code (still a listing), a rewritten NXDOMAIN.
    assert.equal(meaningOf('dnsbl.example.org', '127.0.0.2').kind, 'listed');
    assert.deepEqual(meaningOf('dnsbl.example.org', '127.0.0.5'), {
      kind: 'listed',
      list: 'code 127.0.0.5',
      meaning: 'listed (return code 127.0.0.5)',
    });
    assert.equal(meaningOf('dnsbl.example.org', '198.51.100.80').kind, 'refused');
  });
});

describe('mail host entries and names', () => {
  it('reads host[:port], bracketed IPv6, and sets bad entries apart', () => {
    const { targets, bad } = parseTargets(
      [
        'gmail-smtp-in.l.google.com',
        'MX.Example.com.:2525',
        '[2001:db8::25]:25',
        '127.0.0.2',
        'bad host',
        'x:99999',
      ],
      25,
    );
    assert.deepEqual(
      targets.map(({ host, port }) => `${host} ${port}`),
      ['gmail-smtp-in.l.google.com 25', 'mx.example.com 2525', '2001:db8::25 25', '127.0.0.2 25'],
    );
    assert.deepEqual(bad, ['bad host', 'x:99999']);
  });

  it('knows a fully qualified name', () => {
    assert.equal(isFullyQualified('mx-out.example.com.'), true);
    for (const name of [
      'localhost',
      'vm',
      'ip-10-0-0-5',
      'mx_out.example.com',
      '192.0.2.1',
      '-a.example.com',
    ]) {
      assert.equal(isFullyQualified(name), false, name);
    }
  });
});

/**
 * The SPF evaluator (RFC 7208 check_host) against policies served by the test DNS server, read
 * through the real resolver adapter: mechanisms, qualifiers, includes, redirects, macros and the
 * lookup limits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { checkHost } from '../../src/mail-auth/spf/evaluate.ts';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';

const zones: Zones = {
  'ip4.spf.test': { txt: ['v=spf1 ip4:192.0.2.0/24 ip4:198.51.100.7 -all'] },
  'ip6.spf.test': { txt: ['v=spf1 ip6:2001:db8::/32 ~all'] },
  'a.spf.test': { txt: ['v=spf1 a a:web.spf.test/24 -all'], a: ['192.0.2.1'] },
  'web.spf.test': { a: ['203.0.113.9'] },
  'mx.spf.test': { txt: ['v=spf1 mx -all'], mx: [{ exchange: 'in.mx.spf.test', priority: 10 }] },
  'in.mx.spf.test': { a: ['198.51.100.25'] },
  'include.spf.test': { txt: ['v=spf1 include:provider.spf.test ?all'] },
  'provider.spf.test': { txt: ['v=spf1 ip4:203.0.113.0/24 -all'] },
  'include-fail.spf.test': { txt: ['v=spf1 -include:provider.spf.test +all'] },
  'redirect.spf.test': { txt: ['v=spf1 redirect=provider.spf.test'] },
  'redirect-none.spf.test': { txt: ['v=spf1 redirect=nothing.spf.test'] },
  'include-none.spf.test': { txt: ['v=spf1 include:nothing.spf.test -all'] },
  'two.spf.test': { txt: ['v=spf1 -all', 'v=spf1 +all'] },
  'broken.spf.test': { txt: ['v=spf1 ip4:192.0.2.0/24 bogus:thing -all'] },
  'neutral.spf.test': { txt: ['v=spf1 ip4:192.0.2.0/24'] },
  'exists.spf.test': { txt: ['v=spf1 exists:%{i}._allow.spf.test -all'] },
  '203.0.113.5._allow.spf.test': { a: ['127.0.0.2'] },
  'void.spf.test': { txt: ['v=spf1 a:gone1.spf.test a:gone2.spf.test a:gone3.spf.test +all'] },
  'servfail-include.spf.test': { txt: ['v=spf1 include:servfail.test -all'] },
  'many-mx.spf.test': {
    txt: ['v=spf1 mx -all'],
    mx: Array.from({ length: 11 }, (_, i) => ({ exchange: `m${i}.spf.test`, priority: i })),
  },
  'other.spf.test': { txt: ['google-site-verification=x'] },
};
// Ten includes deep is the limit exactly; eleven is over it.
for (let i = 1; i <= 10; i++)
  zones[`ten${i}.spf.test`] = {
    txt: [i < 10 ? `v=spf1 include:ten${i + 1}.spf.test -all` : 'v=spf1 ip4:192.0.2.1 -all'],
  };
zones['ten.spf.test'] = { txt: ['v=spf1 include:ten1.spf.test -all'] };
zones['eleven.spf.test'] = { txt: ['v=spf1 include:ten.spf.test -all'] };

let world: DnsWorld;
let dns: NodeDnsResolver;
before(async () => {
  world = await startDnsWorld(zones);
  dns = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 2000, tries: 2 });
});
after(() => world.close());

const check = (domain: string, ip: string) => checkHost(dns, { ip, domain, sender: `probe@${domain}` });

describe('SPF check_host', () => {
  it('matches ip4 and ip6 networks, and applies the qualifier of all otherwise', async () => {
    assert.equal((await check('ip4.spf.test', '192.0.2.200')).result, 'pass');
    assert.equal((await check('ip4.spf.test', '198.51.100.7')).result, 'pass');
    const miss = await check('ip4.spf.test', '198.51.100.8');
    assert.equal(miss.result, 'fail');
    assert.equal(miss.matched?.mechanism, '-all');
    assert.equal((await check('ip6.spf.test', '2001:db8:1::25')).result, 'pass');
    assert.equal((await check('ip6.spf.test', '2001:db9::25')).result, 'softfail');
    // An IPv4 client never matches ip6, even all-zero.
    assert.equal((await check('ip6.spf.test', '192.0.2.1')).result, 'softfail');
  });

  it('matches a and mx mechanisms by their addresses, with prefixes', async () => {
    assert.equal((await check('a.spf.test', '192.0.2.1')).result, 'pass');
    const widened = await check('a.spf.test', '203.0.113.77');
    assert.equal(widened.result, 'pass');
    assert.equal(widened.matched?.mechanism, 'a:web.spf.test/24');
    assert.equal((await check('a.spf.test', '192.0.2.2')).result, 'fail');
    assert.equal((await check('mx.spf.test', '198.51.100.25')).result, 'pass');
    assert.equal((await check('mx.spf.test', '198.51.100.26')).result, 'fail');
  });

  it('follows include and redirect, and says through which domains it matched', async () => {
    const included = await check('include.spf.test', '203.0.113.4');
    assert.equal(included.result, 'pass');
    assert.deepEqual(included.matched, {
      mechanism: 'ip4:203.0.113.0/24',
      domain: 'provider.spf.test',
      via: ['include.spf.test'],
    });
    assert.equal((await check('include.spf.test', '192.0.2.4')).result, 'neutral');
    assert.equal((await check('include-fail.spf.test', '203.0.113.4')).result, 'fail');
    assert.equal((await check('redirect.spf.test', '203.0.113.4')).result, 'pass');
    assert.equal((await check('redirect.spf.test', '192.0.2.4')).result, 'fail');
  });

  it('expands macros in exists', async () => {
    assert.equal((await check('exists.spf.test', '203.0.113.5')).result, 'pass');
    assert.equal((await check('exists.spf.test', '203.0.113.6')).result, 'fail');
  });

  it('gives none without a record, neutral when nothing matches and there is no all', async () => {
    const none = await check('other.spf.test', '192.0.2.1');
    assert.equal(none.result, 'none');
    assert.match(none.problem ?? '', /publishes no v=spf1 record/);
    assert.equal((await check('nothing.spf.test', '192.0.2.1')).result, 'none');
    assert.equal((await check('neutral.spf.test', '203.0.113.1')).result, 'neutral');
  });

  it('gives permerror for two records, a syntax error, and includes or redirects of nothing', async () => {
    assert.match((await check('two.spf.test', '192.0.2.1')).problem ?? '', /more than one v=spf1 record/);
    const broken = await check('broken.spf.test', '192.0.2.1');
    assert.equal(broken.result, 'permerror');
    assert.match(broken.problem ?? '', /unknown term "bogus:thing"/);
    assert.equal((await check('include-none.spf.test', '192.0.2.1')).result, 'permerror');
    assert.equal((await check('redirect-none.spf.test', '192.0.2.1')).result, 'permerror');
  });

  it('allows exactly 10 lookups and refuses the eleventh', async () => {
    const ten = await check('ten.spf.test', '192.0.2.1');
    assert.equal(ten.result, 'pass');
    assert.equal(ten.lookups, 10);
    const eleven = await check('eleven.spf.test', '192.0.2.1');
    assert.equal(eleven.result, 'permerror');
    assert.match(eleven.problem ?? '', /more than 10 DNS lookups/);
  });

  it('refuses a third void lookup and an mx of more than 10 hosts', async () => {
    const voids = await check('void.spf.test', '192.0.2.1');
    assert.equal(voids.result, 'permerror');
    assert.match(voids.problem ?? '', /more than 2 lookups found nothing/);
    assert.equal(voids.voidLookups, 3);
    assert.match((await check('many-mx.spf.test', '192.0.2.1')).problem ?? '', /more than 10 MX hosts/);
  });

  it('gives temperror when a lookup fails, never a verdict', async () => {
    const failed = await check('servfail-include.spf.test', '192.0.2.1');
    assert.equal(failed.result, 'temperror');
    assert.match(failed.problem ?? '', /servfail/);
  });
});

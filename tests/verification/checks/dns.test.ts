import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NodeDnsResolver } from '../../../src/adapters/dns/node-resolver.ts';
import { checkDns, isAddressLiteral, orderMxHosts } from '../../../src/verification/checks/dns.ts';
import type { DnsCheck } from '../../../src/verification/report.ts';
import { type DnsWorld, startDnsWorld } from '../../mailworld/dns-server.ts';

let world: DnsWorld;
let resolver: NodeDnsResolver;

before(async () => {
  world = await startDnsWorld({
    // Equal preferences keep the order DNS gave them; upper case and root dots are normalised.
    'tie-mx.test': {
      mx: [
        { exchange: 'Z.tie-mx.test.', priority: 10 },
        { exchange: 'y.tie-mx.test', priority: 10 },
        { exchange: 'x.tie-mx.test', priority: 5 },
      ],
    },
    // A null MX mixed with real hosts is not a null MX: the real hosts stand.
    'mixed-nullmx.test': {
      mx: [
        { exchange: '', priority: 0 },
        { exchange: 'mx.mixed-nullmx.test', priority: 10 },
      ],
    },
  });
  resolver = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 200, tries: 2 });
});

after(() => world.close());

function check(domain: string): Promise<DnsCheck> {
  return checkDns(domain, resolver);
}

describe('checkDns against the DNS world', () => {
  test('MX hosts come back in preference order, lower-case, without trailing dot', async () => {
    assert.deepEqual(await check('multi-mx.test'), {
      outcome: 'mx',
      mxHosts: [
        { exchange: 'a.multi-mx.test', priority: 10 },
        { exchange: 'b.multi-mx.test', priority: 20 },
        { exchange: 'c.multi-mx.test', priority: 30 },
      ],
    });
  });

  test('equal preferences keep their DNS order', async () => {
    const result = await check('tie-mx.test');
    assert.equal(result.outcome, 'mx');
    assert.deepEqual(result.outcome === 'mx' && result.mxHosts.map((mx) => mx.exchange), [
      'x.tie-mx.test',
      'z.tie-mx.test',
      'y.tie-mx.test',
    ]);
  });

  test('a lone "MX 0 ." is a null MX (RFC 7505), even though the domain has an A record', async () => {
    assert.deepEqual(await check('nullmx.test'), { outcome: 'null_mx' });
  });

  test('a null MX mixed with real MX records is dropped, the real ones stand', async () => {
    assert.deepEqual(await check('mixed-nullmx.test'), {
      outcome: 'mx',
      mxHosts: [{ exchange: 'mx.mixed-nullmx.test', priority: 10 }],
    });
  });

  test('no MX but an A record is an implicit MX on the domain itself', async () => {
    assert.deepEqual(await check('a-only.test'), {
      outcome: 'implicit_mx',
      mxHosts: [{ exchange: 'a-only.test', priority: 0 }],
    });
  });

  test('no MX but an AAAA record is an implicit MX too', async () => {
    assert.deepEqual(await check('aaaa-only.test'), {
      outcome: 'implicit_mx',
      mxHosts: [{ exchange: 'aaaa-only.test', priority: 0 }],
    });
  });

  test('a name that does not exist is nxdomain', async () => {
    assert.deepEqual(await check('nxdomain.test'), { outcome: 'nxdomain' });
    assert.deepEqual(await check('no-such-name.multi-mx.test'), { outcome: 'nxdomain' });
  });

  test('a name with only a TXT record has no mail host (NODATA, not NXDOMAIN)', async () => {
    assert.deepEqual(await check('nodata.test'), { outcome: 'no_mail_host' });
  });

  test('an empty non-terminal is NODATA, so no mail host rather than nxdomain', async () => {
    assert.deepEqual(await check('bench.test'), { outcome: 'no_mail_host' });
  });

  test('SERVFAIL is our failure, never nxdomain', async () => {
    assert.deepEqual(await check('servfail.test'), { outcome: 'error', failure: 'servfail', retry: true });
  });

  test('REFUSED is our failure too', async () => {
    assert.deepEqual(await check('refused.test'), { outcome: 'error', failure: 'refused', retry: true });
  });

  test('a black hole ends as a timeout within the bounded time', async () => {
    const started = performance.now();
    const result = await check('blackhole.test');
    const elapsed = performance.now() - started;
    assert.deepEqual(result, { outcome: 'error', failure: 'timeout', retry: true });
    assert.ok(elapsed >= 300 && elapsed < 5000, `took ${elapsed} ms (deadline 400 ms)`);
  });

  test('MX NODATA then A SERVFAIL is an error, not "no mail host"', async () => {
    assert.deepEqual(await check('a-servfail.test'), { outcome: 'error', failure: 'servfail', retry: true });
  });

  test('MX NODATA, A answers, AAAA fails: the A record decides (implicit MX)', async () => {
    assert.deepEqual(await check('aaaa-servfail.test'), {
      outcome: 'implicit_mx',
      mxHosts: [{ exchange: 'aaaa-servfail.test', priority: 0 }],
    });
  });

  test('an MX host behind a CNAME is reported as the MX names it', async () => {
    assert.deepEqual(await check('cname-mx.test'), {
      outcome: 'mx',
      mxHosts: [{ exchange: 'mx.cname-mx.test', priority: 10 }],
    });
    // The host itself still resolves through the alias.
    const address = await resolver.resolveA('mx.cname-mx.test');
    assert.equal(address.kind, 'ok');
    assert.deepEqual(address.kind === 'ok' && address.records, ['127.0.0.2']);
  });

  test('an IDN domain is looked up in its A-label form', async () => {
    assert.deepEqual(await check('xn--bcher-kva.test'), {
      outcome: 'mx',
      mxHosts: [{ exchange: 'mx.xn--bcher-kva.test', priority: 5 }],
    });
  });

  test('wildcard bench domains all have the bench MX', async () => {
    const results = await Promise.all(['d1', 'd77', 'd9999'].map((d) => check(`${d}.bench.test`)));
    for (const result of results) {
      assert.deepEqual(result, { outcome: 'mx', mxHosts: [{ exchange: 'mx.bench.test', priority: 10 }] });
    }
  });

  test('a dead server (closed port) is an error, never nxdomain', async () => {
    const other = await startDnsWorld();
    await other.close();
    const dead = new NodeDnsResolver({ servers: [other.servers], timeoutMs: 200, tries: 1 });
    const result = await checkDns('multi-mx.test', dead);
    assert.equal(result.outcome, 'error');
  });

  test('hostile names never throw and never become nxdomain by truncation', async () => {
    assert.deepEqual(await check('multi-mx.test\u0000.evil'), {
      outcome: 'error',
      failure: 'network',
      retry: true,
    });
    const long = await check(`${'x'.repeat(300)}.test`);
    assert.equal(long.outcome, 'error');
  });
});

describe('address literals and MX ordering', () => {
  test('an address literal is its own route and is not looked up', async () => {
    const before = world.queries;
    assert.equal(isAddressLiteral('[192.0.2.1]'), true);
    assert.equal(isAddressLiteral('example.test'), false);
    assert.deepEqual(await check('[192.0.2.1]'), {
      outcome: 'implicit_mx',
      mxHosts: [{ exchange: '[192.0.2.1]', priority: 0 }],
    });
    assert.equal(world.queries, before);
  });

  test('orderMxHosts keeps each host once, at its best preference', () => {
    assert.deepEqual(
      orderMxHosts([
        { exchange: 'B.example.', priority: 20 },
        { exchange: 'a.example', priority: 10 },
        { exchange: 'b.example', priority: 5 },
        { exchange: '.', priority: 0 },
      ]),
      [
        { exchange: 'b.example', priority: 5 },
        { exchange: 'a.example', priority: 10 },
      ],
    );
  });
});

/**
 * Postures are looked up through a real resolver against the DNS world on loopback, once per
 * domain while kept; a failed lookup answers null and is kept only for its short lifetime.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { MailPostureCache } from '../../src/usage/mail-posture-cache.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';

let dns: DnsWorld;
let resolver: NodeDnsResolver;
before(async () => {
  dns = await startDnsWorld({
    'posture.test': { txt: ['v=spf1 mx -all'] },
    '_dmarc.posture.test': { txt: ['v=DMARC1; p=quarantine'] },
    'broken.test': { fail: 'servfail' },
    '_dmarc.broken.test': { fail: 'servfail' },
  });
  resolver = new NodeDnsResolver({ servers: [dns.servers], timeoutMs: 2000, tries: 1 });
});
after(() => dns?.close());

describe('MailPostureCache', () => {
  it('looks a domain up once while it is kept', async () => {
    const cache = new MailPostureCache(resolver);
    const before = dns.queries;
    const answers = await Promise.all([cache.postureOf('posture.test'), cache.postureOf('posture.test')]);
    assert.deepEqual(answers, [
      { spf: 'sane', dmarc: 'quarantine' },
      { spf: 'sane', dmarc: 'quarantine' },
    ]);
    const asked = dns.queries - before;
    assert.ok(asked >= 2, String(asked));
    assert.deepEqual(await cache.postureOf('posture.test'), { spf: 'sane', dmarc: 'quarantine' });
    assert.equal(dns.queries - before, asked, 'answered from the cache');
  });

  it('answers null for a failed lookup, and asks again once the short lifetime is over', async () => {
    const cache = new MailPostureCache(resolver, { failureTtlMs: 50 });
    assert.equal(await cache.postureOf('broken.test'), null);
    const after = dns.queries;
    assert.equal(await cache.postureOf('broken.test'), null);
    assert.equal(dns.queries, after, 'kept for a moment');
    await sleep(120);
    dns.zones['broken.test'] = { txt: ['v=spf1 +all'] };
    dns.zones['_dmarc.broken.test'] = {};
    assert.deepEqual(await cache.postureOf('broken.test'), { spf: 'permissive', dmarc: 'absent' });
  });
});

/**
 * The whole pipeline against a real DNS server on loopback: every status the status table can give
 * without an SMTP probe is reached through real DNS answers. (The probe's rows are asserted in
 * scoring.test.ts until the SMTP issue brings the mail world's SMTP servers.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SystemClock } from '../../src/adapters/clock/system.ts';
import { CachedDnsResolver } from '../../src/adapters/dns/cached-resolver.ts';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { createListChecker } from '../../src/verification/checks/domain-lists.ts';
import { SkippingProber } from '../../src/verification/checks/smtp-skipped.ts';
import { Verifier } from '../../src/verification/pipeline.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';

let world: DnsWorld;
let resolver: NodeDnsResolver;
let verifier: Verifier;

before(async () => {
  world = await startDnsWorld({
    // A company domain, a disposable one, a domain whose MX is a disposable provider's, a typo.
    'acme-widgets.test': { mx: [{ exchange: 'mx.acme-widgets.test', priority: 10 }] },
    'mailinator.com': { mx: [{ exchange: 'mail.mailinator.com', priority: 10 }] },
    'fresh-throwaway.test': { mx: [{ exchange: 'mail.mailinator.com', priority: 10 }] },
    'outlok.com': { mx: [{ exchange: 'mx.outlok.com', priority: 10 }] },
    'gmail.com': { mx: [{ exchange: 'gmail-smtp-in.l.google.com', priority: 5 }] },
  });
  resolver = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 300, tries: 1 });
  verifier = new Verifier({
    dns: new CachedDnsResolver(resolver, new SystemClock()),
    prober: new SkippingProber(),
    lists: createListChecker({ denyDomains: ['burner.test'] }),
    clock: new SystemClock(),
  });
});
after(async () => {
  resolver.cancel();
  await world.close();
});

describe('pipeline through real DNS', () => {
  it('INVALID_SYNTAX asks DNS nothing', async () => {
    const before = world.queries;
    const result = await verifier.verify('john..doe@acme-widgets.test');
    assert.equal(result.status, 'INVALID_SYNTAX');
    assert.equal(result.score, 0);
    assert.equal(result.checks.syntax, false);
    assert.equal(world.queries, before);
  });

  it('NXDOMAIN → INVALID_DOMAIN', async () => {
    const result = await verifier.verify('jane@nxdomain.test');
    assert.deepEqual([result.status, result.score, result.reason], ['INVALID_DOMAIN', 2, 'domain_not_found']);
    assert.equal(result.checks.domain_exists, false);
  });

  it('null MX → NO_MX_RECORDS 5, even with an A record', async () => {
    const result = await verifier.verify('jane@nullmx.test');
    assert.deepEqual([result.status, result.score, result.reason], ['NO_MX_RECORDS', 5, 'null_mx']);
    assert.equal(result.checks.domain_exists, true);
    assert.equal(result.checks.mailbox_exists, false);
  });

  it('no MX, no A/AAAA → NO_MX_RECORDS 5', async () => {
    const result = await verifier.verify('jane@nodata.test');
    assert.deepEqual([result.status, result.score, result.reason], ['NO_MX_RECORDS', 5, 'no_mail_host']);
  });

  it('A-only and AAAA-only → implicit MX, NO_MX_RECORDS 30', async () => {
    for (const domain of ['a-only.test', 'aaaa-only.test']) {
      const result = await verifier.verify(`jane@${domain}`);
      assert.deepEqual(
        [result.status, result.score, result.reason],
        ['NO_MX_RECORDS', 30, 'implicit_mx'],
        domain,
      );
      assert.equal(result.checks.mx_records, false);
      assert.equal(result.checks.mailbox_exists, true);
    }
  });

  it('SERVFAIL, REFUSED and a silent server → PROBABLY_VALID 50 dns_error, never INVALID_DOMAIN', async () => {
    for (const domain of ['servfail.test', 'refused.test', 'blackhole.test', 'a-servfail.test']) {
      const result = await verifier.verify(`jane@${domain}`);
      assert.deepEqual(
        [result.status, result.score, result.reason],
        ['PROBABLY_VALID', 50, 'dns_error'],
        domain,
      );
    }
  });

  it('MX with several priorities → probe skipped, PROBABLY_VALID 75', async () => {
    const report = await verifier.report('Jane.Doe@Multi-MX.test');
    assert.equal(report.dns?.outcome, 'mx');
    assert.deepEqual(report.dns?.outcome === 'mx' ? report.dns.mxHosts.map((mx) => mx.exchange) : [], [
      'a.multi-mx.test',
      'b.multi-mx.test',
      'c.multi-mx.test',
    ]);
    const result = await verifier.verify('Jane.Doe@Multi-MX.test');
    assert.equal(result.email, 'Jane.Doe@Multi-MX.test');
    assert.deepEqual([result.status, result.score, result.reason], ['PROBABLY_VALID', 75, 'probe_skipped']);
    assert.equal(result.checks.smtp, 'skipped');
    assert.equal(result.checks.catch_all, null);
  });

  it('an MX host behind a CNAME still routes mail', async () => {
    const result = await verifier.verify('jane@cname-mx.test');
    assert.equal(result.checks.mx_records, true);
    assert.equal(result.status, 'PROBABLY_VALID');
  });

  it('an IDN domain is looked up in its A-label form', async () => {
    const report = await verifier.report('jörg@bücher.test');
    assert.equal(report.normalized.asciiDomain, 'xn--bcher-kva.test');
    assert.equal(report.dns?.outcome, 'mx');
    const result = await verifier.verify('jörg@bücher.test');
    assert.equal(result.email, 'jörg@bücher.test');
    assert.equal(result.checks.mx_records, true);
  });

  it('DISPOSABLE from the list, from the MX host, and from an operator deny entry', async () => {
    assert.equal((await verifier.verify('jane@mailinator.com')).status, 'DISPOSABLE');
    const byMx = await verifier.report('jane@fresh-throwaway.test');
    assert.equal(byMx.lists?.disposable, true);
    assert.equal(byMx.lists?.disposableSource, 'mx_host');
    assert.equal((await verifier.verify('jane@fresh-throwaway.test')).score, 15);
    assert.equal((await verifier.report('jane@burner.test')).lists?.disposableSource, 'operator_deny');
  });

  it('ROLE_BASED, and two risks → INVALID multiple_risks', async () => {
    const role = await verifier.verify('no-reply@acme-widgets.test');
    assert.deepEqual([role.status, role.score, role.reason], ['ROLE_BASED', 50, 'role_account']);
    const both = await verifier.verify('info@mailinator.com');
    assert.deepEqual([both.status, both.score, both.reason], ['INVALID', 10, 'multiple_risks']);
  });

  it('a typo suggestion is a whole address and lowers the score by 25', async () => {
    const typo = await verifier.verify('jane@outlok.com');
    assert.deepEqual(typo.checks.suggestions, ['jane@outlook.com']);
    assert.equal(typo.score, 75 - 25);
    const plain = await verifier.verify('jane@gmail.com');
    assert.deepEqual(plain.checks.suggestions, []);
    assert.equal(plain.checks.free_provider, true);
    assert.equal(plain.score, 75);
  });

  it('a quoted local part is valid and lowered by 15; an address literal is never looked up', async () => {
    const quoted = await verifier.verify('"jane doe"@acme-widgets.test');
    assert.deepEqual([quoted.status, quoted.score], ['PROBABLY_VALID', 75 - 15]);
    const before = world.queries;
    const literal = await verifier.verify('jane@[192.0.2.1]');
    assert.deepEqual(
      [literal.status, literal.score, literal.reason],
      ['NO_MX_RECORDS', 30 - 15, 'implicit_mx'],
    );
    assert.equal(world.queries, before);
  });

  it('answers hostile strings with INVALID_SYNTAX, never a throw', async () => {
    for (const input of [
      '\uD800@acme-widgets.test',
      '\u0000',
      '',
      '   ',
      'a'.repeat(1 << 20),
      '@'.repeat(10_000),
    ]) {
      const result = await verifier.verify(input);
      assert.equal(result.status, 'INVALID_SYNTAX');
    }
  });

  it('the DNS cache answers repeated domains without asking again', async () => {
    await verifier.verify('first@acme-widgets.test');
    const before = world.queries;
    for (let i = 0; i < 50; i++) await verifier.verify(`user${i}@acme-widgets.test`);
    assert.equal(world.queries, before);
  });
});

/**
 * The sender-domain checks against the test world: a zone per case, real SMTP hosts with and
 * without STARTTLS and with good and bad certificates, an HTTPS server serving MTA-STS policies, a
 * test DNSBL and DBL. Every finding each case produces is asserted, in order, with its status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SenderFinding } from '../../src/sender-checks/finding.ts';
import type { DomainReport } from '../../src/sender-checks/run-checks.ts';
import {
  DBL,
  DNSBL,
  GOOD_MX,
  LISTED_IP,
  REFUSING_DNSBL,
  type SenderWorld,
  startSenderWorld,
} from './sender-world.ts';

let world: SenderWorld;
before(async () => {
  world = await startSenderWorld();
});
after(() => world.close());

/** `status:code` of each finding of one check (or all). */
function codes(report: DomainReport, check?: SenderFinding['check']): string[] {
  return report.findings
    .filter((item) => check === undefined || item.check === check)
    .map((item) => `${item.status}:${item.code}`);
}

function only(report: DomainReport, code: string): SenderFinding {
  const found = report.findings.filter((item) => item.code === code);
  assert.equal(found.length, 1, `one ${code} in ${codes(report).join(' ')}`);
  return found[0]!;
}

describe('a domain with everything in place', () => {
  it('passes every check and gets an A', async () => {
    const report = await world.check('good.sender.test');
    assert.deepEqual(codes(report), [
      'pass:spf_ok',
      'pass:dmarc_ok',
      'pass:dkim_ok',
      'pass:mx_ok',
      'pass:mta_sts_ok',
      'pass:tls_rpt_ok',
      'pass:bimi_ok',
      'pass:blocklist_clean',
    ]);
    assert.equal(report.grade, 'A');
    assert.equal(report.score, 100);
    assert.equal(report.dkimSelectorsGiven, false);
    assert.ok(report.dkimSelectors.includes('google') && report.dkimSelectors.includes('s1'));
    assert.deepEqual(only(report, 'dkim_ok').details.bits, 2048);
    assert.deepEqual(only(report, 'blocklist_clean').details.addresses, ['127.0.0.60']);
    assert.ok(report.findings.every((item) => item.fix === null));
    assert.equal(report.complete, true);
  });
});

describe('a domain whose DNS servers fail', () => {
  it('says what could not be looked up, one finding per check, and marks the report incomplete', async () => {
    const report = await world.check('broken.sender.test');
    assert.deepEqual(codes(report), [
      'warn:spf_lookup_failed',
      'warn:dmarc_lookup_failed',
      'warn:dkim_lookup_failed',
      'warn:mx_lookup_failed',
      'warn:mta_sts_lookup_failed',
      'warn:tls_rpt_lookup_failed',
      'info:bimi_lookup_failed',
      'pass:blocklist_clean',
    ]);
    assert.equal(report.complete, false);
    assert.equal(
      (only(report, 'dkim_lookup_failed').details.selectors as string[]).length,
      report.dkimSelectors.length,
    );
  });
});

describe('SPF', () => {
  it('counts DNS-querying terms through every include: 11 is over the limit of 10', async () => {
    const report = await world.check('lookups.sender.test');
    assert.deepEqual(codes(report, 'spf'), ['fail:spf_too_many_lookups']);
    const finding = only(report, 'spf_too_many_lookups');
    assert.equal(finding.details.lookups, 11);
    assert.match(finding.fix!, /flatten/);
    assert.equal(report.grade, 'C');
  });

  it('fails +all and caps the grade at D', async () => {
    const report = await world.check('plusall.sender.test');
    assert.deepEqual(codes(report, 'spf'), ['fail:spf_pass_all']);
    assert.match(only(report, 'spf_pass_all').fix!, /Replace "\+all" by "-all"/);
    assert.equal(report.grade, 'D');
  });

  it('warns about ?all', async () => {
    const report = await world.check('neutral.sender.test');
    assert.deepEqual(codes(report, 'spf'), ['warn:spf_neutral_all']);
    assert.equal(report.grade, 'B');
  });

  it('fails more than two void lookups', async () => {
    const report = await world.check('voids.sender.test');
    assert.deepEqual(codes(report, 'spf'), ['fail:spf_void_lookups']);
    assert.equal(only(report, 'spf_void_lookups').details.void_lookups, 3);
  });

  it('fails two SPF records, and a missing one', async () => {
    assert.deepEqual(codes(await world.check('twospf.sender.test'), 'spf'), ['fail:spf_multiple_records']);
    const none = await world.check('nospf.sender.test');
    assert.deepEqual(codes(none, 'spf'), ['fail:spf_missing']);
    assert.match(only(none, 'spf_missing').fix!, /v=spf1 include:/);
    assert.equal(none.grade, 'C');
  });
});

describe('DMARC', () => {
  it('fails a missing record; TLS-RPT and BIMI absent are information', async () => {
    const report = await world.check('nodmarc.sender.test');
    assert.deepEqual(codes(report, 'dmarc'), ['fail:dmarc_missing']);
    assert.match(
      only(report, 'dmarc_missing').fix!,
      /_dmarc\.nodmarc\.sender\.test: "v=DMARC1; p=none; rua=mailto:/,
    );
    assert.deepEqual(codes(report, 'tls_rpt'), ['info:tls_rpt_missing']);
    assert.deepEqual(codes(report, 'bimi'), ['info:bimi_missing']);
    assert.equal(report.grade, 'C');
  });

  it('warns about p=none without reports, and BIMI then shows no logo', async () => {
    const report = await world.check('dmarcnone.sender.test');
    assert.deepEqual(codes(report, 'dmarc'), ['warn:dmarc_policy_none', 'warn:dmarc_no_rua']);
    assert.deepEqual(codes(report, 'bimi'), ['warn:bimi_needs_dmarc_enforcement']);
  });

  it('reads pct, sp, ruf and strict alignment', async () => {
    const report = await world.check('dmarcpct.sender.test');
    assert.deepEqual(codes(report, 'dmarc'), [
      'warn:dmarc_partial_pct',
      'warn:dmarc_weak_subdomain_policy',
      'info:dmarc_ruf',
      'info:dmarc_strict_alignment',
    ]);
    const details = only(report, 'dmarc_partial_pct').details;
    assert.equal(details.pct, 50);
    assert.equal(details.subdomain_policy, 'none');
    assert.deepEqual(codes(report, 'bimi'), ['warn:bimi_needs_dmarc_enforcement']);
  });
});

describe('DKIM', () => {
  it('reads the key type and length of each selector given', async () => {
    const report = await world.check('dkim.sender.test', ['k1024', 'k512', 'ed', 's1', 'revoked', 'nothere']);
    assert.deepEqual(codes(report, 'dkim'), [
      'warn:dkim_short_key',
      'fail:dkim_weak_key',
      'pass:dkim_ok',
      'pass:dkim_ok',
      'info:dkim_revoked',
      'fail:dkim_not_found',
    ]);
    const dkim = report.findings.filter((item) => item.check === 'dkim');
    assert.deepEqual(
      dkim.slice(0, 4).map((item) => [item.details.selector, item.details.key_type, item.details.bits]),
      [
        ['k1024', 'rsa', 1024],
        ['k512', 'rsa', 512],
        ['ed', 'ed25519', 256],
        ['s1', 'rsa', 2048],
      ],
    );
    assert.equal(report.dkimSelectorsGiven, true);
    // 100 − 6 − 20 − 20 = 54.
    assert.equal(report.grade, 'D');
  });

  it('warns when none of the common selectors has a key', async () => {
    const report = await world.check('nodkim.sender.test');
    assert.deepEqual(codes(report, 'dkim'), ['warn:dkim_not_found']);
  });
});

describe('MX', () => {
  it('fails a host without STARTTLS, and warns about a missing PTR', async () => {
    const report = await world.check('plain.sender.test');
    assert.deepEqual(codes(report, 'mx'), ['fail:mx_no_starttls', 'warn:mx_ptr_missing']);
    assert.match(only(report, 'mx_no_starttls').fix!, /STARTTLS/);
  });

  it('tells a self-signed certificate from one for another name', async () => {
    const selfSigned = only(await world.check('selfsigned.sender.test'), 'mx_certificate_invalid');
    assert.equal(selfSigned.status, 'warn');
    assert.match(selfSigned.summary, /self-signed/);
    const wrong = await world.check('wrongname.sender.test');
    assert.deepEqual(codes(wrong, 'mx'), ['warn:mx_certificate_invalid']);
    const facts = (
      only(wrong, 'mx_certificate_invalid').details.outcome as {
        certificate: { trusted: boolean; nameMatches: boolean };
      }
    ).certificate;
    assert.deepEqual([facts.trusted, facts.nameMatches], [true, false]);
    assert.match(
      only(wrong, 'mx_certificate_invalid').summary,
      /not valid for the name mx\.wrongname\.sender\.test \(it names other\.sender\.test\)/,
    );
  });

  it('warns when the PTR name does not resolve back', async () => {
    const report = await world.check('ptrbad.sender.test');
    assert.deepEqual(codes(report, 'mx'), ['warn:mx_ptr_mismatch']);
    assert.deepEqual(only(report, 'mx_ptr_mismatch').details.ptr, ['unrelated.sender.test']);
  });

  it('fails an MX host nothing answers on, and a domain without MX', async () => {
    assert.deepEqual(codes(await world.check('unreachable.sender.test'), 'mx'), ['fail:mx_unreachable']);
    const none = await world.check('nomx.sender.test');
    assert.deepEqual(codes(none, 'mx'), ['fail:mx_missing']);
    assert.equal(none.grade, 'D');
  });

  it('never dials an MX address outside the public internet unless allowed', async () => {
    const report = await world.check('good.sender.test', [], { allowPrivate: false });
    assert.deepEqual(codes(report, 'mx'), ['fail:mx_private_address']);
    assert.equal(only(report, 'mx_private_address').details.refusal, 'loopback');
  });
});

describe('MTA-STS', () => {
  it('fails a policy that leaves out a real MX host', async () => {
    const report = await world.check('stsbad.sender.test');
    assert.deepEqual(codes(report, 'mta_sts'), ['fail:mta_sts_mx_mismatch']);
    assert.deepEqual(only(report, 'mta_sts_mx_mismatch').details.uncovered, [GOOD_MX]);
  });

  it('reads testing mode and a short max_age; wildcards cover the MX', async () => {
    const report = await world.check('ststesting.sender.test');
    assert.deepEqual(codes(report, 'mta_sts'), ['info:mta_sts_testing', 'warn:mta_sts_short_max_age']);
  });

  it('fails a record whose policy host does not exist', async () => {
    const report = await world.check('stsgone.sender.test');
    assert.deepEqual(codes(report, 'mta_sts'), ['fail:mta_sts_policy_unreachable']);
    assert.equal(only(report, 'mta_sts_policy_unreachable').details.failure, 'dns');
  });

  it('fetches no policy from a private address unless allowed (the SSRF guard)', async () => {
    const report = await world.check('good.sender.test', [], {}, false);
    assert.deepEqual(codes(report, 'mta_sts'), ['fail:mta_sts_policy_unreachable']);
    assert.equal(only(report, 'mta_sts_policy_unreachable').details.failure, 'refused_address');
  });
});

describe('blocklists', () => {
  it('finds an SPF-listed sending address in the DNSBL', async () => {
    const report = await world.check('listed.sender.test');
    assert.deepEqual(codes(report, 'blocklists'), ['fail:blocklist_listed']);
    const listed = only(report, 'blocklist_listed');
    assert.equal(listed.details.subject, LISTED_IP);
    assert.match(
      listed.summary,
      new RegExp(
        `sending address \\(from SPF\\) ${LISTED_IP.replace(/\./g, '\\.')} is listed in ${DNSBL.replace(/\./g, '\\.')}`,
      ),
    );
    assert.equal(report.grade, 'D');
  });

  it('finds the domain in the DBL', async () => {
    const report = await world.check('spammy.sender.test');
    assert.deepEqual(codes(report, 'blocklists'), ['fail:blocklist_listed']);
    assert.match(
      only(report, 'blocklist_listed').summary,
      new RegExp(`The domain spammy\\.sender\\.test is listed in ${DBL.replace(/\./g, '\\.')}`),
    );
  });

  it('tells a refused query from a listing', async () => {
    const report = await world.check('good.sender.test', [], { ipZones: [DNSBL, REFUSING_DNSBL] });
    assert.deepEqual(codes(report, 'blocklists'), ['warn:blocklist_query_refused']);
    assert.match(
      only(report, 'blocklist_query_refused').summary,
      /refusing\.sender\.test refused to answer .* not a listing/,
    );
  });
});

/**
 * No grade from a resolver that cannot be trusted: a real DNS server on loopback that answers
 * NXDOMAIN for every name, the control names included. The API answers `grade: null`,
 * `complete: false` and the one finding `resolver_untrustworthy` (no SPF, MX or blocklist finding)
 * and gives the unit back; `mailvet domain-check` prints that and exits 2. The same server with
 * its zones back grades again, and a resolver that finds one control name is believed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { resolverTrust } from '../../src/sender-checks/resolver-trust.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));
const CONTROLS = ['gmail.com', 'outlook.com', 'yahoo.com'];

/** A domain with SPF and an MX the world can answer for, when its zones are there. */
const SENDER: Zones = {
  'sender.example': { mx: [{ exchange: 'mx.sender.example', priority: 10 }], txt: ['v=spf1 mx -all'] },
  'mx.sender.example': { a: ['192.0.2.25'] },
  '_dmarc.sender.example': { txt: ['v=DMARC1; p=reject'] },
};

/** Empties the world's zones: every name is NXDOMAIN. Returns a function that puts them back. */
function answerNxdomainForAll(world: DnsWorld): () => void {
  const saved = { ...world.zones };
  for (const name of Object.keys(world.zones)) delete world.zones[name];
  return () => Object.assign(world.zones, saved);
}

describe('the resolver trust check', () => {
  it('believes a resolver that finds one control name, and not one that finds none', async () => {
    const world = await startDnsWorld({
      'gmail.com': { fail: 'servfail' },
      'outlook.com': { fail: 'blackhole' },
    });
    const dns = new NodeDnsResolver({ servers: [world.servers], timeoutMs: 300, tries: 1 });
    try {
      const some = await resolverTrust(dns, CONTROLS);
      assert.equal(some.trusted, true);
      assert.deepEqual(
        some.controls.find((control) => control.name === 'yahoo.com'),
        { name: 'yahoo.com', answer: 'MX found' },
      );
      answerNxdomainForAll(world);
      const none = await resolverTrust(dns, CONTROLS);
      assert.equal(none.trusted, false);
      assert.deepEqual(Object.fromEntries(none.controls.map((control) => [control.name, control.answer])), {
        'gmail.com': 'nxdomain',
        'outlook.com': 'nxdomain',
        'yahoo.com': 'nxdomain',
      });
      // No control name configured: the check is off, as it is for the verifier.
      assert.deepEqual(await resolverTrust(dns, []), { trusted: true, controls: [] });
    } finally {
      dns.cancel();
      await world.close();
    }
  });
});

describe('a domain check on a resolver that says NXDOMAIN for everything', () => {
  it('POST /api/v1/domains/check: no grade, one finding, not charged', async () => {
    const world = await startDnsWorld(SENDER);
    let t: TestApp | undefined;
    try {
      t = await testApp({
        quota: 10,
        rate: 1000,
        env: {
          MAILVET_DNS_SERVERS: world.servers,
          MAILVET_DNSBL_ZONES: 'bl.example',
          MAILVET_DNSBL_DOMAIN_ZONES: 'dbl.example',
        },
      });
      const app = t;
      const check = () =>
        app.app.inject({
          method: 'POST',
          url: '/api/v1/domains/check',
          headers: app.auth(),
          payload: { domain: 'sender.example' },
        });
      const restore = answerNxdomainForAll(world);
      const refused = await check();
      assert.equal(refused.statusCode, 200, refused.body);
      const report = refused.json();
      assert.equal(report.grade, null);
      assert.equal(report.score, null);
      assert.equal(report.complete, false);
      assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
      const [finding] = report.findings;
      assert.equal(finding.check, 'resolver');
      assert.equal(finding.code, 'resolver_untrustworthy');
      assert.equal(finding.status, 'fail');
      assert.match(finding.summary, /gmail\.com: nxdomain/);
      assert.match(finding.fix, /mailvet doctor/);
      assert.match(finding.fix, /MAILVET_DNS_SERVERS/);
      assert.deepEqual(report.counts, { pass: 0, warn: 0, fail: 1, info: 0 });
      // Our failure, not an answer: the unit is given back, and the report is not kept.
      assert.equal((await app.usage()).verifications, 0);
      assert.equal(refused.headers['x-quota-remaining'], '10');

      // The same server with its zones back: a grade, from the domain's own records.
      restore();
      const graded = await check();
      assert.equal(graded.statusCode, 200);
      const body = graded.json();
      assert.equal(body.cached, false);
      assert.match(String(body.grade), /^[A-F]$/);
      assert.equal(typeof body.score, 'number');
      assert.ok(body.findings.some((item: { code: string }) => item.code === 'spf_ok'));
      assert.ok(!body.findings.some((item: { code: string }) => item.code === 'resolver_untrustworthy'));
      assert.equal((await app.usage()).verifications, 1);
    } finally {
      await t?.close();
      await world.close();
    }
  });

  it('mailvet domain-check: no grade, the fix, exit code 2', async () => {
    const world = await startDnsWorld(SENDER);
    answerNxdomainForAll(world);
    try {
      const env = {
        ...process.env,
        MAILVET_DNS_SERVERS: world.servers,
        MAILVET_DNSBL_ZONES: 'bl.example',
        MAILVET_DNSBL_DOMAIN_ZONES: 'dbl.example',
        MAILVET_DATA_DIR: '/nonexistent/mailvet-domain-check',
      };
      const human = await mailvet(['domain-check', 'sender.example'], env);
      assert.equal(human.code, 2, human.stdout + human.stderr);
      assert.match(human.stdout, /^sender\.example: no grade — this host's DNS resolver cannot be trusted$/m);
      assert.match(human.stdout, /^✖ resolver {4}The DNS resolver this service asks cannot be trusted/m);
      assert.match(human.stdout, /^ {4}fix: .*mailvet doctor.*MAILVET_DNS_SERVERS/m);
      assert.doesNotMatch(human.stdout, /grade [A-F]|spf|blocklist|no MX/i);

      const json = await mailvet(['domain-check', 'sender.example', '--json'], env);
      assert.equal(json.code, 2);
      const report = JSON.parse(json.stdout);
      assert.equal(report.grade, null);
      assert.equal(report.complete, false);
      assert.deepEqual(
        report.findings.map((item: { code: string }) => item.code),
        ['resolver_untrustworthy'],
      );
    } finally {
      await world.close();
    }
  });
});

function mailvet(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

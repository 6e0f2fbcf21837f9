/**
 * The host check end to end through configuration, against the test DNS world and an SMTP host on
 * loopback: each finding passes in a fit world and fails (or warns) for its own reason.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createDoctorRun } from '../../src/container/doctor.ts';
import type { CheckName, DoctorReport, Finding } from '../../src/doctor/finding.ts';
import { hasFailure, summaryLine } from '../../src/doctor/finding.ts';
import { closedPort, DNSBL_ZONE, type DoctorWorld, EGRESS, HELO, startDoctorWorld } from './doctor-world.ts';

let world: DoctorWorld;
let startingZones: string;

before(async () => {
  world = await startDoctorWorld();
  startingZones = JSON.stringify(world.dns.zones);
});
after(() => world.close());
beforeEach(() => {
  // Each test starts from the fit world: what a test added or changed is undone.
  for (const name of Object.keys(world.dns.zones)) delete world.dns.zones[name];
  Object.assign(world.dns.zones, JSON.parse(startingZones));
});

function doctor(env: Record<string, string | undefined> = {}): Promise<DoctorReport> {
  const merged = Object.fromEntries(
    Object.entries({ ...world.env, ...env }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;
  return createDoctorRun(loadConfig(merged))();
}

function findingOf(report: DoctorReport, check: CheckName): Finding {
  const found = report.findings.find((item) => item.check === check);
  assert.ok(found, `no ${check} finding`);
  return found;
}

describe('mailvet doctor against the test world', () => {
  it('passes every check on a fit host, having learned the egress address from the EHLO echo', async () => {
    const report = await doctor();
    const statuses = Object.fromEntries(report.findings.map((item) => [item.check, item.status]));
    assert.deepEqual(statuses, {
      port_25: 'pass',
      egress_address: 'pass',
      helo: 'pass',
      reverse_dns: 'pass',
      dnsbl: 'pass',
      spf: 'pass',
      resolver: 'pass',
    });
    assert.equal(report.egressIp, EGRESS);
    assert.equal(findingOf(report, 'egress_address').details.source, 'server_echo');
    assert.equal(hasFailure(report), false);
    assert.match(summaryLine(report), /^doctor: 7 passed, 0 warned, 0 failed, 0 skipped/);
  });

  it('fails port 25 when no mail host answers, with the provider-block fix, and skips the address checks', async () => {
    const report = await doctor({ MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${await closedPort()}` });
    const port = findingOf(report, 'port_25');
    assert.equal(port.status, 'fail');
    assert.match(port.summary, /connection refused/);
    assert.match(port.fix ?? '', /blocked by your hosting provider or a firewall/);
    assert.equal(report.egressIp, null);
    for (const check of ['egress_address', 'reverse_dns', 'dnsbl', 'spf'] as const) {
      assert.equal(findingOf(report, check).status, 'skipped', check);
    }
    assert.equal(findingOf(report, 'resolver').status, 'pass');
    assert.match(summaryLine(report), /failed: port_25/);
  });

  it('runs the address checks on MAILVET_EGRESS_IP even when port 25 is closed', async () => {
    const report = await doctor({
      MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${await closedPort()}`,
      MAILVET_EGRESS_IP: EGRESS,
    });
    assert.equal(findingOf(report, 'egress_address').details.source, 'configured');
    assert.equal(findingOf(report, 'reverse_dns').status, 'pass');
    assert.equal(findingOf(report, 'spf').status, 'pass');
  });

  it('says the checks are of direct egress when probes go through a SOCKS5 proxy', async () => {
    const egress = findingOf(
      await doctor({ MAILVET_SMTP_PROXY: 'socks5://127.0.0.1:1080' }),
      'egress_address',
    );
    assert.equal(egress.details.proxied, true);
    assert.match(
      egress.summary,
      /MAILVET_SMTP_PROXY is set: probes leave through the proxy, and these checks are of this host's direct egress only/,
    );
  });

  it('fails reverse DNS when the egress address has no PTR', async () => {
    delete world.dns.zones['1.0.0.127.in-addr.arpa'];
    const found = findingOf(await doctor(), 'reverse_dns');
    assert.equal(found.status, 'fail');
    assert.match(found.summary, /has no PTR/);
    assert.match(found.fix ?? '', /set its PTR to mx-out\.doctor\.test/);
  });

  it('warns when the PTR, confirmed, is not the HELO name, and says which HELO to set', async () => {
    world.dns.zones['1.0.0.127.in-addr.arpa'] = { ptr: ['other.doctor.test'] };
    world.dns.zones['other.doctor.test'] = { a: [EGRESS] };
    const found = findingOf(await doctor(), 'reverse_dns');
    assert.equal(found.status, 'warn');
    assert.match(
      found.summary,
      /other\.doctor\.test \(confirmed\), but the probe says EHLO mx-out\.doctor\.test/,
    );
    assert.equal(
      found.fix,
      'Set MAILVET_SMTP_HELO=other.doctor.test, or change the PTR to mx-out.doctor.test.',
    );
  });

  it('fails reverse DNS when the PTR name does not resolve back to the egress address', async () => {
    world.dns.zones[HELO] = { a: ['127.0.0.9'] };
    const found = findingOf(await doctor(), 'reverse_dns');
    assert.equal(found.status, 'fail');
    assert.match(found.summary, /does not resolve back to 127\.0\.0\.1/);
  });

  it('warns about an unset HELO (the host name stands in) and compares the PTR with that name', async () => {
    const report = await doctor({ MAILVET_SMTP_HELO: undefined });
    const helo = findingOf(report, 'helo');
    assert.notEqual(helo.status, 'pass');
    assert.match(helo.summary, /MAILVET_SMTP_HELO is unset/);
    assert.equal(helo.details.configured, false);
    const reverse = findingOf(report, 'reverse_dns');
    assert.equal(reverse.status, 'warn');
    assert.match(reverse.summary, /MAILVET_SMTP_HELO is unset/);
  });

  it('fails the blocklist check when the zone lists the egress address', async () => {
    world.dns.zones[`1.0.0.127.${DNSBL_ZONE}`] = { a: ['127.0.0.2'] };
    const found = findingOf(await doctor(), 'dnsbl');
    assert.equal(found.status, 'fail');
    assert.match(found.summary, /127\.0\.0\.1 is listed in bl\.doctor\.test/);
  });

  it('names the Spamhaus list from its return code, and tells a refused query from a listing', async () => {
    world.dns.zones['1.0.0.127.zen.spamhaus.org'] = { a: ['127.0.0.4'] };
    world.dns.zones['2.0.0.127.zen.spamhaus.org'] = { a: ['127.0.0.2'] };
    const listed = findingOf(await doctor({ MAILVET_DNSBL_ZONES: 'zen.spamhaus.org' }), 'dnsbl');
    assert.equal(listed.status, 'fail');
    assert.match(listed.summary, /zen\.spamhaus\.org \(XBL:/);

    world.dns.zones['1.0.0.127.zen.spamhaus.org'] = { a: ['127.255.255.254'] };
    world.dns.zones['2.0.0.127.zen.spamhaus.org'] = { a: ['127.255.255.254'] };
    const refused = findingOf(await doctor({ MAILVET_DNSBL_ZONES: 'zen.spamhaus.org' }), 'dnsbl');
    assert.equal(refused.status, 'warn');
    assert.doesNotMatch(refused.summary, /is listed/);
    assert.match(
      refused.summary,
      /refused to answer \(127\.255\.255\.254: query through a public or open resolver/,
    );
    assert.match(refused.fix ?? '', /MAILVET_DNS_SERVERS/);
  });

  it('warns when a zone does not list its own test entry: its silence means nothing', async () => {
    delete world.dns.zones[`2.0.0.127.${DNSBL_ZONE}`];
    const found = findingOf(await doctor(), 'dnsbl');
    assert.equal(found.status, 'warn');
    assert.match(found.summary, /does not list its own test entry/);
  });

  it('warns when the FROM domain publishes no SPF, and fails when its SPF does not cover the address', async () => {
    world.dns.zones['doctor.test'] = { txt: ['google-site-verification=abc'] };
    const missing = findingOf(await doctor(), 'spf');
    assert.equal(missing.status, 'warn');
    assert.match(missing.fix ?? '', /"v=spf1 ip4:127\.0\.0\.1 -all"/);

    world.dns.zones['doctor.test'] = { txt: ['v=spf1 ip4:192.0.2.0/24 -all'] };
    const uncovered = findingOf(await doctor(), 'spf');
    assert.equal(uncovered.status, 'fail');
    assert.match(uncovered.summary, /does not allow 127\.0\.0\.1/);
    assert.match(uncovered.fix ?? '', /add "ip4:127\.0\.0\.1"/);
  });

  it('passes SPF covered through a chain of includes, and names the chain', async () => {
    world.dns.zones['doctor.test'] = { txt: ['v=spf1 include:_spf.relay.test -all'] };
    world.dns.zones['_spf.relay.test'] = { txt: ['v=spf1 include:_net.relay.test ~all'] };
    world.dns.zones['_net.relay.test'] = { txt: ['v=spf1 ip4:127.0.0.0/8 -all'] };
    const found = findingOf(await doctor(), 'spf');
    assert.equal(found.status, 'pass');
    assert.match(
      found.summary,
      /"ip4:127\.0\.0\.0\/8" reached through doctor\.test → _spf\.relay\.test → _net\.relay\.test/,
    );
  });

  it('fails SPF that needs more than 10 lookups', async () => {
    world.dns.zones['doctor.test'] = { txt: ['v=spf1 include:i1.spf.test -all'] };
    for (let i = 1; i <= 11; i++)
      world.dns.zones[`i${i}.spf.test`] = { txt: [`v=spf1 include:i${i + 1}.spf.test -all`] };
    world.dns.zones['i12.spf.test'] = { txt: ['v=spf1 +all'] };
    const found = findingOf(await doctor(), 'spf');
    assert.equal(found.status, 'fail');
    assert.match(found.summary, /more than 10 DNS lookups/);
    assert.match(found.fix ?? '', /flatten/);
  });

  it('ends at once when stopped (a shutdown), reporting the unfinished checks as stopped', async () => {
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const env = {
        ...world.env,
        MAILVET_DNS_SERVERS: `127.0.0.1:${silent.address().port}`,
        MAILVET_DNS_TIMEOUT_MS: '60000',
      };
      const stop = new AbortController();
      const running = createDoctorRun(loadConfig(env))(stop.signal);
      stop.abort();
      const report = await running;
      const resolver = findingOf(report, 'resolver');
      assert.equal(resolver.status, 'skipped');
      assert.match(resolver.summary, /shutting down/);
    } finally {
      silent.close();
    }
  });

  it('fails the resolver check when the DNS server never answers', async () => {
    const silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const report = await doctor({
        MAILVET_DNS_SERVERS: `127.0.0.1:${silent.address().port}`,
        MAILVET_DNS_TIMEOUT_MS: '200',
        MAILVET_DNS_TRIES: '1',
      });
      const resolver = findingOf(report, 'resolver');
      assert.equal(resolver.status, 'fail');
      assert.match(
        resolver.summary,
        /answers none of its control queries \(control\.doctor\.test: timeout\)/,
      );
      // Port 25 needs no DNS here (an address is given) and still works.
      assert.equal(findingOf(report, 'port_25').status, 'pass');
      // Lookups that time out are "could not check", never a verdict.
      assert.equal(findingOf(report, 'reverse_dns').status, 'warn');
      assert.equal(findingOf(report, 'dnsbl').status, 'warn');
      assert.equal(findingOf(report, 'spf').status, 'warn');
    } finally {
      silent.close();
    }
  });
});

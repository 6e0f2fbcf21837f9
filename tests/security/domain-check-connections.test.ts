/**
 * Attack: domain checks bypassed the probe's connection limits. The STARTTLS dial of
 * `POST /api/v1/domains/check` tried up to 5 MX hosts × 2 addresses and drew on none of the probe's
 * budgets, and a new subdomain per request got round the report cache: one account, two checks in
 * flight, made 1,445 SMTP connections to one address in 10 s where `/verify/bulk` made 200, its
 * documented cap. Every outbound SMTP connection now draws on the same buckets (per destination
 * address, per domain, per account; in Redis in scale-out): a flood of checks and verifications
 * together stays within the one address's bucket, and a check whose dial is held back says so
 * (`mx_not_dialled`) instead of dialling.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, testApp } from '../helpers/app.ts';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';
import { type SmtpHost, startSmtpHost } from '../mailworld/smtp-server.ts';

const MX_ADDRESS = '127.0.9.25';
const RATE = 10; // MAILVET_SMTP_CONNECTIONS_PER_ADDRESS: the bucket holds twice that
const SUBDOMAINS = 400;
const FLOOD_MS = 4000;

let dns: DnsWorld;
let smtp: SmtpHost;
let t: TestApp;

/** 400 subdomains, each with five MX names that all lead to one mail server. */
function floodZones(): Zones {
  const zones: Zones = { 'control.flood.test': { mx: [{ exchange: 'mx1.flood.test', priority: 10 }] } };
  for (let i = 1; i <= 5; i++) zones[`mx${i}.flood.test`] = { a: [MX_ADDRESS] };
  for (let i = 0; i < SUBDOMAINS; i++) {
    zones[`s${i}.flood.test`] = {
      mx: [1, 2, 3, 4, 5].map((n) => ({ exchange: `mx${n}.flood.test`, priority: n * 10 })),
    };
  }
  return zones;
}

before(async () => {
  dns = await startDnsWorld(floodZones());
  smtp = await startSmtpHost({ host: MX_ADDRESS, behaviour: 'accept-known', name: 'mx1.flood.test' });
  t = await testApp({
    plan: 'pro',
    quota: 100_000,
    // Above what four requests in a loop can send on a fast machine: the bucket under test is
    // the SMTP connections', not the API's.
    rate: 1_000_000,
    env: {
      MAILVET_DNS_SERVERS: dns.servers,
      MAILVET_DNS_CONTROL_NAMES: 'control.flood.test',
      MAILVET_SMTP_PROBE: 'true',
      MAILVET_SMTP_PORT: String(smtp.port),
      MAILVET_SMTP_ALLOW_PRIVATE: 'true',
      MAILVET_SMTP_CONNECTIONS_PER_ADDRESS: String(RATE),
      MAILVET_DNSBL_ZONES: '',
      MAILVET_DNSBL_DOMAIN_ZONES: '',
    },
  });
});
after(async () => {
  await t?.close();
  await smtp?.close();
  await dns?.close();
});

test('checks of new subdomains and verifications together stay within one address’s connection bucket', async () => {
  let next = 0;
  const findings = new Map<string, number>();
  const deadline = performance.now() + FLOOD_MS;
  const started = performance.now();
  const checks = async () => {
    while (performance.now() < deadline && next < SUBDOMAINS) {
      const domain = `s${next++}.flood.test`;
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/domains/check',
        headers: t.auth(),
        payload: { domain },
      });
      assert.equal(response.statusCode, 200, response.body);
      for (const finding of (response.json() as { findings: Array<{ check: string; code: string }> })
        .findings) {
        if (finding.check === 'mx') findings.set(finding.code, (findings.get(finding.code) ?? 0) + 1);
      }
    }
  };
  let verified = 0;
  const verifications = async () => {
    while (performance.now() < deadline) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: t.auth(),
        payload: { email: `user${verified++}@s${SUBDOMAINS - 1 - (verified % 50)}.flood.test` },
      });
      assert.equal(response.statusCode, 200, response.body);
    }
  };
  // Two checks in flight, as the attack ran, beside two verifications.
  await Promise.all([checks(), checks(), verifications(), verifications()]);
  const seconds = (performance.now() - started) / 1000;
  const bound = 2 * RATE + Math.ceil(RATE * seconds);
  const connections = smtp.stats.connections;
  assert.ok(
    connections <= bound,
    `${connections} connections to ${MX_ADDRESS} in ${seconds.toFixed(1)} s; the bucket allows ${bound} (${next} checks, ${verified} verifications)`,
  );
  assert.ok(
    (findings.get('mx_not_dialled') ?? 0) > 0,
    `held dials said so: ${JSON.stringify([...findings])}`,
  );
  assert.ok(connections > 0, 'the mail server was reached');
});

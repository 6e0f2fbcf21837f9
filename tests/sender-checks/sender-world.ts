/**
 * The sender checks' test world: the DNS world with a zone per case, SMTP hosts on 127.0.0.60+
 * (STARTTLS with a certificate from a test CA, without STARTTLS, self-signed, for the wrong name),
 * an HTTPS server on 127.0.0.70 serving MTA-STS policies by Host, and a test DNSBL and DBL. The CA,
 * the certificates and the DKIM keys are made at start with `openssl` and node:crypto: nothing
 * secret is kept in the repository.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDnsResolver } from '../../src/adapters/dns/node-resolver.ts';
import { HttpsPolicyFetcher } from '../../src/adapters/mta-sts/policy-fetcher.ts';
import { StarttlsProbe } from '../../src/adapters/starttls/starttls-probe.ts';
import { type DomainReport, runSenderChecks } from '../../src/sender-checks/run-checks.ts';
import { SENDER_CHECK_DEFAULTS, type SenderCheckSettings } from '../../src/sender-checks/settings.ts';
import { type DnsWorld, startDnsWorld, type Zones } from '../mailworld/dns-server.ts';
import { type SmtpHost, startSmtpHost } from '../mailworld/smtp-server.ts';

export const GOOD_MX = 'mx.good.sender.test';
const GOOD_IP = '127.0.0.60';
const PLAIN_IP = '127.0.0.61';
const SELF_SIGNED_IP = '127.0.0.62';
const WRONG_NAME_IP = '127.0.0.63';
const PTR_BAD_IP = '127.0.0.64';
/** Nothing listens here. */
const DEAD_IP = '127.0.0.250';
const HTTPS_IP = '127.0.0.70';
/** An SPF-listed sending address that the test DNSBL lists. */
export const LISTED_IP = '127.0.0.66';
export const DNSBL = 'bl.sender.test';
export const REFUSING_DNSBL = 'refusing.sender.test';
export const DBL = 'dbl.sender.test';

/** Test certificates and keys, made with openssl under a temporary directory. */
interface Pki {
  dir: string;
  caFile: string;
  ca: string;
  leaf(name: string, altNames: string[]): { key: string; cert: string };
}

function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'mailvet-sender-pki-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Mailvet sender-check test CA',
  ]);
  let serial = 1;
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    leaf(name, altNames) {
      const base = `leaf-${serial}`;
      writeFileSync(
        join(dir, `${base}.ext`),
        `subjectAltName=${altNames.map((each) => `DNS:${each}`).join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
      );
      run(['req', ...ec, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${name}`]);
      run([
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-set_serial',
        String(serial++),
        '-days',
        '2',
        '-out',
        `${base}.pem`,
        '-extfile',
        `${base}.ext`,
      ]);
      return {
        key: readFileSync(join(dir, `${base}.key`), 'utf8'),
        cert: readFileSync(join(dir, `${base}.pem`), 'utf8'),
      };
    },
  };
}

/** A DKIM record of a new key: RSA of `bits`, or Ed25519. */
export function dkimRecord(kind: number | 'ed25519'): string {
  if (kind === 'ed25519') {
    const der = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
    return `v=DKIM1; k=ed25519; p=${der.subarray(-32).toString('base64')}`;
  }
  const der = generateKeyPairSync('rsa', { modulusLength: kind }).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  return `v=DKIM1; k=rsa; p=${der.toString('base64')}`;
}

const STRONG_DMARC = (domain: string) => `v=DMARC1; p=reject; rua=mailto:dmarc@${domain}`;

/** A domain whose every record is as it should be, with MX `mx` (and more records that win). */
function goodDomain(domain: string, more: Zones = {}, mx = GOOD_MX): Zones {
  return {
    [domain]: { mx: [{ exchange: mx, priority: 10 }], txt: ['v=spf1 mx -all'] },
    [`_dmarc.${domain}`]: { txt: [STRONG_DMARC(domain)] },
    [`s1._domainkey.${domain}`]: { txt: [dkimRecord(2048)] },
    [`_smtp._tls.${domain}`]: { txt: [`v=TLSRPTv1; rua=mailto:tls@${domain}`] },
    [`default._bimi.${domain}`]: { txt: [`v=BIMI1; l=https://${domain}/logo.svg; a=`] },
    ...more,
  };
}

function ptr(ip: string, name: string): Zones {
  return { [`${ip.split('.').reverse().join('.')}.in-addr.arpa`]: { ptr: [name] } };
}

/** Every case's zones. */
export function senderZones(): Zones {
  const includes: Zones = {};
  for (let n = 1; n <= 11; n++)
    includes[`i${n}.lookups.sender.test`] = { txt: [`v=spf1 ip4:192.0.2.${n} -all`] };
  return {
    // Mail hosts, with forward-confirmed reverse DNS (but the PTR-mismatch and plain ones).
    [GOOD_MX]: { a: [GOOD_IP] },
    ...ptr(GOOD_IP, GOOD_MX),
    'mx.plain.sender.test': { a: [PLAIN_IP] },
    'mx.selfsigned.sender.test': { a: [SELF_SIGNED_IP] },
    ...ptr(SELF_SIGNED_IP, 'mx.selfsigned.sender.test'),
    'mx.wrongname.sender.test': { a: [WRONG_NAME_IP] },
    ...ptr(WRONG_NAME_IP, 'mx.wrongname.sender.test'),
    'mx.ptrbad.sender.test': { a: [PTR_BAD_IP] },
    ...ptr(PTR_BAD_IP, 'unrelated.sender.test'),
    'unrelated.sender.test': { a: ['127.0.0.99'] },
    'mx.dead.sender.test': { a: [DEAD_IP] },
    ...ptr(DEAD_IP, 'mx.dead.sender.test'),
    // The good domain: MTA-STS served on 127.0.0.70.
    ...goodDomain('good.sender.test', {
      '_mta-sts.good.sender.test': { txt: ['v=STSv1; id=20260101T000000'] },
      'mta-sts.good.sender.test': { a: [HTTPS_IP] },
    }),
    // Good but without MTA-STS (the command line's case: it serves no policy port of its own).
    ...goodDomain('cli.sender.test'),
    // SPF cases.
    ...goodDomain('lookups.sender.test', {
      'lookups.sender.test': {
        mx: [{ exchange: GOOD_MX, priority: 10 }],
        txt: [
          `v=spf1 ${Array.from({ length: 11 }, (_, i) => `include:i${i + 1}.lookups.sender.test`).join(' ')} -all`,
        ],
      },
      ...includes,
    }),
    ...goodDomain('plusall.sender.test', {
      'plusall.sender.test': { mx: [{ exchange: GOOD_MX, priority: 10 }], txt: ['v=spf1 mx +all'] },
    }),
    ...goodDomain('neutral.sender.test', {
      'neutral.sender.test': { mx: [{ exchange: GOOD_MX, priority: 10 }], txt: ['v=spf1 mx ?all'] },
    }),
    ...goodDomain('voids.sender.test', {
      'voids.sender.test': {
        mx: [{ exchange: GOOD_MX, priority: 10 }],
        txt: ['v=spf1 a:gone1.sender.test a:gone2.sender.test a:gone3.sender.test mx -all'],
      },
    }),
    ...goodDomain('twospf.sender.test', {
      'twospf.sender.test': {
        mx: [{ exchange: GOOD_MX, priority: 10 }],
        txt: ['v=spf1 mx -all', 'v=spf1 ip4:192.0.2.1 -all'],
      },
    }),
    ...goodDomain('nospf.sender.test', {
      'nospf.sender.test': {
        mx: [{ exchange: GOOD_MX, priority: 10 }],
        txt: ['google-site-verification=abc'],
      },
    }),
    // DMARC cases.
    ...goodDomain('nodmarc.sender.test', {
      '_dmarc.nodmarc.sender.test': {},
      '_smtp._tls.nodmarc.sender.test': {},
      'default._bimi.nodmarc.sender.test': {},
    }),
    ...goodDomain('dmarcnone.sender.test', { '_dmarc.dmarcnone.sender.test': { txt: ['v=DMARC1; p=none'] } }),
    ...goodDomain('dmarcpct.sender.test', {
      '_dmarc.dmarcpct.sender.test': {
        txt: [
          'v=DMARC1; p=quarantine; pct=50; sp=none; adkim=s; rua=mailto:d@dmarcpct.sender.test; ruf=mailto:f@dmarcpct.sender.test',
        ],
      },
    }),
    // DKIM cases.
    ...goodDomain('dkim.sender.test', {
      'k1024._domainkey.dkim.sender.test': { txt: [dkimRecord(1024)] },
      'k512._domainkey.dkim.sender.test': { txt: [dkimRecord(512)] },
      'ed._domainkey.dkim.sender.test': { txt: [dkimRecord('ed25519')] },
      'revoked._domainkey.dkim.sender.test': { txt: ['v=DKIM1; k=rsa; p='] },
    }),
    ...goodDomain('nodkim.sender.test', { 's1._domainkey.nodkim.sender.test': {} }),
    // MX cases.
    ...goodDomain('plain.sender.test', {}, 'mx.plain.sender.test'),
    ...goodDomain('selfsigned.sender.test', {}, 'mx.selfsigned.sender.test'),
    ...goodDomain('wrongname.sender.test', {}, 'mx.wrongname.sender.test'),
    ...goodDomain('ptrbad.sender.test', {}, 'mx.ptrbad.sender.test'),
    ...goodDomain('unreachable.sender.test', {}, 'mx.dead.sender.test'),
    ...goodDomain('nomx.sender.test', { 'nomx.sender.test': { txt: ['v=spf1 ip4:192.0.2.7 -all'] } }),
    // Blocklists: a listed SPF sending address, a listed domain.
    ...goodDomain('listed.sender.test', {
      'listed.sender.test': {
        mx: [{ exchange: GOOD_MX, priority: 10 }],
        txt: [`v=spf1 mx ip4:${LISTED_IP} -all`],
      },
    }),
    [`${LISTED_IP.split('.').reverse().join('.')}.${DNSBL}`]: { a: ['127.0.0.2'] },
    [`2.0.0.127.${DNSBL}`]: { a: ['127.0.0.2'] },
    [`*.${REFUSING_DNSBL}`]: { a: ['127.255.255.254'] },
    ...goodDomain('spammy.sender.test'),
    [`spammy.sender.test.${DBL}`]: { a: ['127.0.1.2'] },
    // MTA-STS cases: a policy missing an MX, one in testing with a short max_age, one not served.
    ...goodDomain('stsbad.sender.test', {
      '_mta-sts.stsbad.sender.test': { txt: ['v=STSv1; id=1'] },
      'mta-sts.stsbad.sender.test': { a: [HTTPS_IP] },
    }),
    ...goodDomain('ststesting.sender.test', {
      '_mta-sts.ststesting.sender.test': { txt: ['v=STSv1; id=1'] },
      'mta-sts.ststesting.sender.test': { a: [HTTPS_IP] },
    }),
    ...goodDomain('stsgone.sender.test', { '_mta-sts.stsgone.sender.test': { txt: ['v=STSv1; id=1'] } }),
    // A domain whose servers fail every question.
    'broken.sender.test': { fail: 'servfail' },
    '*.broken.sender.test': { fail: 'servfail' },
  };
}

/** The policies the HTTPS server serves, by host. */
const POLICIES: Record<string, string> = {
  'mta-sts.good.sender.test': `version: STSv1\nmode: enforce\nmx: ${GOOD_MX}\nmax_age: 604800\n`,
  'mta-sts.stsbad.sender.test': 'version: STSv1\nmode: enforce\nmx: mx.elsewhere.test\nmax_age: 604800\n',
  'mta-sts.ststesting.sender.test': 'version: STSv1\nmode: testing\nmx: *.good.sender.test\nmax_age: 3600\n',
};

export interface SenderWorld {
  dns: DnsWorld;
  smtpPort: number;
  httpsPort: number;
  /** The test CA (PEM) and its file (NODE_EXTRA_CA_CERTS of child processes). */
  ca: string;
  caFile: string;
  /** Settings pointed at this world; `more` wins. */
  settings(more?: Partial<SenderCheckSettings>): SenderCheckSettings;
  /** Runs the checks of `domain` in this process. */
  check(
    domain: string,
    selectors?: string[],
    more?: Partial<SenderCheckSettings>,
    fetchPrivate?: boolean,
  ): Promise<DomainReport>;
  /** The environment of `mailvet` pointed at this world. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the world. */
export async function startSenderWorld(): Promise<SenderWorld> {
  const pki = makePki();
  const good = pki.leaf(GOOD_MX, [GOOD_MX, 'mx.ptrbad.sender.test']);
  const wrong = pki.leaf('other.sender.test', ['other.sender.test']);
  const web = pki.leaf('mta-sts.good.sender.test', Object.keys(POLICIES));
  const dns = await startDnsWorld(senderZones());
  const hosts: SmtpHost[] = [];
  const first = await startSmtpHost({ host: GOOD_IP, behaviour: 'starttls', name: GOOD_MX, tls: good });
  hosts.push(first);
  const port = first.port;
  hosts.push(
    await startSmtpHost({ host: PLAIN_IP, port, behaviour: 'accept-known', name: 'mx.plain.sender.test' }),
    // The fixture's own self-signed certificate (for mx.tls.test).
    await startSmtpHost({ host: SELF_SIGNED_IP, port, behaviour: 'starttls' }),
    await startSmtpHost({ host: WRONG_NAME_IP, port, behaviour: 'starttls', tls: wrong }),
    await startSmtpHost({ host: PTR_BAD_IP, port, behaviour: 'starttls', tls: good }),
  );
  const server = https.createServer({ key: web.key, cert: web.cert }, (request, response) => {
    const policy = POLICIES[(request.headers.host ?? '').toLowerCase()];
    if (request.url !== '/.well-known/mta-sts.txt' || policy === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(policy);
  });
  await new Promise<void>((resolve) => server.listen(0, HTTPS_IP, resolve));
  const httpsPort = (server.address() as AddressInfo).port;
  const resolver = new NodeDnsResolver({ servers: [dns.servers], timeoutMs: 2000, tries: 2 });
  const settings = (more: Partial<SenderCheckSettings> = {}): SenderCheckSettings => ({
    ...SENDER_CHECK_DEFAULTS,
    smtpPort: port,
    helo: 'checker.sender.test',
    allowPrivate: true,
    ipZones: [DNSBL],
    domainZones: [DBL],
    // The configuration's default control names: the DNS world has them, as the internet does.
    controlNames: ['gmail.com', 'outlook.com', 'yahoo.com'],
    ...more,
  });
  const tlsProbe = new StarttlsProbe({ extraCa: pki.ca });
  return {
    dns,
    smtpPort: port,
    httpsPort,
    ca: pki.ca,
    caFile: pki.caFile,
    settings,
    check: (domain, selectors = [], more = {}, fetchPrivate = true) => {
      const policyFetcher = new HttpsPolicyFetcher(resolver, {
        allowPrivate: fetchPrivate,
        port: httpsPort,
        extraCa: pki.ca,
      });
      return runSenderChecks({ dns: resolver, tlsProbe, policyFetcher }, settings(more), domain, selectors);
    },
    env: {
      MAILVET_DNS_SERVERS: dns.servers,
      MAILVET_DNS_TIMEOUT_MS: '2000',
      MAILVET_DNS_TRIES: '2',
      MAILVET_SMTP_PORT: String(port),
      MAILVET_SMTP_ALLOW_PRIVATE: 'true',
      MAILVET_SMTP_HELO: 'checker.sender.test',
      MAILVET_DNSBL_ZONES: DNSBL,
      MAILVET_DNSBL_DOMAIN_ZONES: DBL,
      NODE_EXTRA_CA_CERTS: pki.caFile,
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await Promise.all(hosts.map((host) => host.close()));
      await dns.close();
      resolver.cancel();
      rmSync(pki.dir, { recursive: true, force: true });
    },
  };
}

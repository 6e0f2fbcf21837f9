/**
 * The probe through SOCKS5 egress (MAILVET_SMTP_PROXY), wired from configuration as production
 * wires it, against the mail world (real DNS and SMTP servers on loopback) and the test SOCKS5
 * proxy: what the proxy is given (the MX address, never a name), the EHLO name per proxy, failures
 * at the proxy, stickiness per domain, and the SSRF guard in front of the proxy.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { createServices, createVerifier } from '../../../src/container/index.ts';
import { createLogger } from '../../../src/container/logger.ts';
import type { Verifier } from '../../../src/verification/pipeline.ts';
import type { Zones } from '../../mailworld/dns-server.ts';
import { type MailWorld, startMailWorld } from '../../mailworld/mail-world.ts';
import { type SocksServer, startSocksServer } from '../../mailworld/socks-server.ts';

const USER = 'mailvet';
const PASSWORD = 'p4ss-w0rd-never-logged';
const SPREAD_DOMAINS = Array.from({ length: 40 }, (_, i) => `d${i}.spread.test`);

let world: MailWorld;
let open: SocksServer;
let authed: SocksServer;
let other: SocksServer;

before(async () => {
  const zones: Zones = {};
  for (const domain of SPREAD_DOMAINS) zones[domain] = { mx: [{ exchange: 'mx.accept.test', priority: 10 }] };
  world = await startMailWorld({ zones });
  [open, authed, other] = await Promise.all([
    startSocksServer(),
    startSocksServer({ users: { [USER]: PASSWORD } }),
    startSocksServer(),
  ]);
});
after(async () => {
  await Promise.all([world.close(), open.close(), authed.close(), other.close()]);
});
beforeEach(async () => {
  // A probe answers before its session's QUIT: let the last test's sessions end first.
  await Promise.all([open.idle(), authed.idle(), other.idle()]);
  world.resetStats();
  for (const proxy of [open, authed, other]) proxy.reset();
});

/** A verifier wired from the mail world's environment plus `env`. */
function verifierWith(env: Record<string, string>): Promise<Verifier> {
  return createVerifier(
    loadConfig({ ...world.env, MAILVET_SMTP_HELO: 'global.mailvet.test', ...env }),
    () => {},
  );
}

/** The client lines of every session a host saw from its greeting on. */
function clientLines(transcripts: string[][]): string[][] {
  return transcripts
    .map((transcript) => transcript.filter((line) => line.startsWith('C: ')))
    .filter((lines) => lines[0]?.startsWith('C: EHLO ') || lines[0]?.startsWith('C: HELO '));
}

describe('the probe through a SOCKS5 proxy', () => {
  it('reaches the MX with the right verdicts; the proxy is given the MX address and the user; EHLO is the proxy’s #helo=', async () => {
    const verifier = await verifierWith({
      MAILVET_SMTP_PROXY: `socks5://${USER}:${PASSWORD}@127.0.0.1:${authed.port}#helo=exit1.mailvet.test`,
    });
    const known = await verifier.verify('alice@accept.test');
    assert.deepEqual(
      [known.status, known.reason, known.checks.smtp],
      ['VALID', 'mailbox_confirmed', 'deliverable'],
    );
    const unknown = await verifier.verify('nobody-here@accept.test');
    assert.deepEqual([unknown.status, unknown.reason], ['INVALID', 'mailbox_rejected']);

    const acceptAddress = world.dns.zones['mx.accept.test']?.a?.[0];
    assert.equal(acceptAddress, '127.0.0.2');
    assert.deepEqual(authed.stats.connects, [
      { host: acceptAddress, addressType: 'ipv4', port: world.smtpPort, user: USER },
      { host: acceptAddress, addressType: 'ipv4', port: world.smtpPort, user: USER },
    ]);
    const host = world.hosts['accept-known'];
    assert.equal(host.stats.connections, 2);
    for (const lines of clientLines(host.stats.transcripts)) {
      assert.equal(lines[0], 'C: EHLO exit1.mailvet.test');
      // MAIL FROM stays the global identity: the proxy changes the source address, not the sender.
      assert.ok(lines.includes('C: MAIL FROM:<verify@global.mailvet.test>'), lines.join('\n'));
    }
  });

  it('upgrades to TLS over the proxied stream (STARTTLS) and greets again with the proxy’s name', async () => {
    const verifier = await verifierWith({
      MAILVET_SMTP_PROXY: `socks5://127.0.0.1:${open.port}#helo=exit2.mailvet.test`,
    });
    const result = await verifier.verify('alice@tls.test');
    assert.equal(result.checks.smtp, 'deliverable');
    const host = world.hosts.starttls;
    assert.equal(host.stats.starttls, 1);
    assert.equal(open.stats.sessions, 1);
    assert.deepEqual(
      open.stats.connects.map((connect) => connect.addressType),
      ['ipv4'],
    );
  });

  it('without #helo= the probe greets with MAILVET_SMTP_HELO', async () => {
    const verifier = await verifierWith({ MAILVET_SMTP_PROXY: `socks5://127.0.0.1:${open.port}` });
    assert.equal((await verifier.verify('bob@accept.test')).checks.smtp, 'deliverable');
    const [lines] = clientLines(world.hosts['accept-known'].stats.transcripts);
    assert.equal(lines?.[0], 'C: EHLO global.mailvet.test');
    assert.equal(open.stats.sessions, 1);
  });

  it('an MX the proxy cannot connect to is that MX’s failure: the next MX is tried, nothing is logged', async () => {
    const warnings: string[] = [];
    const verifier = await createVerifier(
      loadConfig({ ...world.env, MAILVET_SMTP_PROXY: `socks5://127.0.0.1:${open.port}` }),
      (message) => warnings.push(message),
    );
    const result = await verifier.verify('alice@deadfirst.test');
    assert.equal(result.checks.smtp, 'deliverable');
    assert.deepEqual(
      open.stats.connects.map((connect) => connect.host),
      [world.dns.zones['mx1.deadfirst.test']?.a?.[0], world.dns.zones['mx2.deadfirst.test']?.a?.[0]],
    );
    assert.deepEqual(warnings, []);
  });
});

describe('wired by createServices from configuration', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailvet-socks-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Services from configuration, with the log lines they write. */
  async function servicesWith(proxy: string) {
    const lines: string[] = [];
    const services = await createServices(
      loadConfig({ ...world.env, MAILVET_DATA_DIR: dataDir, MAILVET_SMTP_PROXY: proxy }),
      { log: createLogger({ level: 'info', stream: { write: (line) => lines.push(line) } }) },
    );
    return { services, lines };
  }

  it('the service’s verifier probes through the configured proxy, logging nothing', async () => {
    const { services, lines } = await servicesWith(
      `socks5://${USER}:${PASSWORD}@127.0.0.1:${authed.port}#helo=exit3.mailvet.test`,
    );
    try {
      const result = await services.verifier.verify('carol@accept.test');
      assert.deepEqual([result.status, result.checks.smtp], ['VALID', 'deliverable']);
      assert.deepEqual(
        authed.stats.connects.map((connect) => [connect.host, connect.user]),
        [['127.0.0.2', USER]],
      );
      assert.equal(
        clientLines(world.hosts['accept-known'].stats.transcripts)[0]?.[0],
        'C: EHLO exit3.mailvet.test',
      );
      assert.ok(!lines.join('').includes(PASSWORD));
    } finally {
      await services.close();
    }
  });

  it('wrong credentials: connect_failed (the inconclusive verdict), one warn line naming the proxy, never the password', async () => {
    const wrong = 'wrong-secret-for-the-proxy';
    const { services, lines } = await servicesWith(`socks5://${USER}:${wrong}@127.0.0.1:${authed.port}`);
    try {
      const result = await services.verifier.verify('alice@accept.test');
      assert.deepEqual(
        [result.checks.smtp, result.reason, result.status],
        ['unknown', 'connect_failed', 'PROBABLY_VALID'],
      );
      assert.deepEqual(authed.stats.failedLogins, [USER]);
      assert.deepEqual(authed.stats.connects, []);
      assert.equal(world.hosts['accept-known'].stats.connections, 0);
      const warns = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
      assert.equal(warns.length, 1, lines.join(''));
      assert.match(
        warns[0].msg,
        new RegExp(
          `SMTP proxy socks5://${USER}@127\\.0\\.0\\.1:${authed.port}: SOCKS5 authentication failed`,
        ),
      );
      assert.ok(!lines.join('').includes(wrong), 'the password is in the log');
      // A domain with two MX hosts: the second is not tried through a proxy that already failed us.
      const twoMx = await services.verifier.verify('alice@deadfirst.test');
      assert.equal(twoMx.reason, 'connect_failed');
      assert.deepEqual(authed.stats.failedLogins, [USER, USER]);
    } finally {
      await services.close();
    }
  });

  it('a proxy nothing listens on: connect_failed, logged as "proxy refused connection"', async () => {
    const closed = await startSocksServer();
    await closed.close();
    const { services, lines } = await servicesWith(`socks5://${USER}:${PASSWORD}@127.0.0.1:${closed.port}`);
    try {
      const result = await services.verifier.verify('alice@accept.test');
      assert.deepEqual([result.checks.smtp, result.reason], ['unknown', 'connect_failed']);
      const log = lines.join('');
      assert.match(
        log,
        new RegExp(`SMTP proxy socks5://${USER}@127\\.0\\.0\\.1:${closed.port}: proxy refused connection`),
      );
      assert.ok(!log.includes(PASSWORD));
      assert.equal(world.hosts['accept-known'].stats.connections, 0);
    } finally {
      await services.close();
    }
  });

  it('a proxy that asks for credentials none were configured for: connect_failed, said so', async () => {
    const { services, lines } = await servicesWith(`socks5://127.0.0.1:${authed.port}`);
    try {
      const result = await services.verifier.verify('alice@accept.test');
      assert.equal(result.reason, 'connect_failed');
      assert.match(lines.join(''), /SOCKS5 authentication failed \(the proxy asks for a user and password\)/);
    } finally {
      await services.close();
    }
  });
});

describe('several proxies', () => {
  it('spreads domains across them, and a domain always goes through the same one', async () => {
    const verifier = await verifierWith({
      MAILVET_SMTP_PROXY: `socks5://127.0.0.1:${open.port}#helo=exit-a.test, socks5://127.0.0.1:${other.port}#helo=exit-b.test`,
      MAILVET_SMTP_CONNECTIONS_PER_ADDRESS: '1000',
    });
    // Two rounds, a few domains at a time (within the two sessions per address each proxy may hold).
    for (let round = 0; round < 2; round++) {
      for (let at = 0; at < SPREAD_DOMAINS.length; at += 4) {
        const batch = SPREAD_DOMAINS.slice(at, at + 4);
        const results = await Promise.all(batch.map((domain) => verifier.verify(`alice@${domain}`)));
        assert.deepEqual(
          results.map((result) => result.checks.smtp),
          batch.map(() => 'deliverable'),
        );
      }
    }
    // Which proxy each session went through, told by its EHLO name, by the domain it asked about.
    const helosOf = new Map<string, Set<string>>();
    for (const lines of clientLines(world.hosts['accept-known'].stats.transcripts)) {
      const helo = lines[0]?.replace('C: EHLO ', '') ?? '';
      const domain =
        lines.find((line) => line.startsWith('C: RCPT TO:<alice@'))?.replace(/^.*@|>$/g, '') ?? '';
      helosOf.set(domain, (helosOf.get(domain) ?? new Set()).add(helo));
    }
    assert.equal(helosOf.size, SPREAD_DOMAINS.length);
    for (const [domain, helos] of helosOf) assert.equal(helos.size, 1, `${domain} used ${[...helos]}`);
    const throughA = [...helosOf.values()].filter((helos) => helos.has('exit-a.test')).length;
    const throughB = [...helosOf.values()].filter((helos) => helos.has('exit-b.test')).length;
    assert.equal(throughA + throughB, SPREAD_DOMAINS.length);
    assert.ok(throughA >= 8 && throughB >= 8, `A ${throughA}, B ${throughB}`);
    // Each proxy carried exactly its domains' sessions (two rounds each).
    assert.equal(open.stats.sessions, throughA * 2);
    assert.equal(other.stats.sessions, throughB * 2);
  });
});

describe('the SSRF guard in front of the proxy', () => {
  it('refuses private and loopback MX addresses when allow-private is off; the proxy never hears of them', async () => {
    const verifier = await verifierWith({
      MAILVET_SMTP_ALLOW_PRIVATE: 'false',
      MAILVET_SMTP_PROXY: `socks5://127.0.0.1:${open.port}`,
    });
    for (const address of ['alice@private-mx.test', 'alice@accept.test']) {
      const result = await verifier.verify(address);
      assert.deepEqual([result.checks.smtp, result.reason], ['unknown', 'probe_refused'], address);
    }
    assert.equal(open.stats.clients, 0);
    assert.deepEqual(open.stats.connects, []);
  });
});

/**
 * Evidence through the whole pipeline against the mail world (a real DNS server and real SMTP
 * servers on 127.0.0.x), wired as production wires it: the MX host and address the probe talked
 * to, the reply that decided, the catch-all probe and what it got, the provider behind MX hosts
 * with a provider's names (pointed at loopback servers), and nothing at all where nothing was
 * probed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createVerifier } from '../../src/container/index.ts';
import { noEvidence } from '../../src/verification/evidence.ts';
import type { Verifier } from '../../src/verification/pipeline.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';

let world: MailWorld;

/** A verifier of its own, so no catch-all verdict is remembered from another test. */
async function freshVerifier(): Promise<Verifier> {
  return createVerifier(loadConfig({ ...world.env, MAILVET_SMTP_HELO: 'probe.mailvet.test' }));
}

before(async () => {
  world = await startMailWorld();
  const { hosts, dns } = world;
  // MX hosts named like a provider's, served by the world's loopback hosts.
  dns.zones['workspace-hosted.test'] = { mx: [{ exchange: 'aspmx.l.google.com', priority: 1 }] };
  dns.zones['aspmx.l.google.com'] = { a: [hosts['accept-known'].host] };
  dns.zones['gateway-fronted.test'] = { mx: [{ exchange: 'mx0a-0042.pphosted.com', priority: 10 }] };
  dns.zones['mx0a-0042.pphosted.com'] = { a: [hosts['catch-all'].host] };
});
after(() => world.close());

describe('evidence against the mail world', () => {
  it('a rejected mailbox: the 550 5.1.1 that decided, the host and address, the probe that ran', async () => {
    const verifier = await freshVerifier();
    const result = await verifier.verify('nobody-here@accept.test');
    assert.equal(result.reason, 'mailbox_rejected');
    const { evidence } = result;
    assert.equal(evidence.mx_host, 'mx.accept.test');
    assert.equal(evidence.mx_address, world.hosts['accept-known'].host);
    assert.equal(evidence.provider, null);
    assert.equal(evidence.smtp_reply?.code, 550);
    assert.equal(evidence.smtp_reply?.enhanced_code, '5.1.1');
    assert.match(evidence.smtp_reply?.message ?? '', /Recipient address rejected: User unknown/);
    assert.equal(evidence.catch_all_probe.ran, true);
    assert.equal(evidence.catch_all_probe.outcome, 'rejected');
    assert.equal(evidence.catch_all_probe.reply?.code, 550);
    assert.equal(evidence.catch_all_probe.reply?.enhanced_code, '5.1.1');
    assert.deepEqual(evidence.catch_all_signals, []);
    assert.equal(result.checks.catch_all_confidence, null);
  });

  it('a confirmed mailbox: the 250; a second address later is told the remembered probe outcome', async () => {
    const verifier = await freshVerifier();
    const first = await verifier.verify('alice@accept.test');
    assert.equal(first.status, 'VALID');
    assert.equal(first.evidence.smtp_reply?.code, 250);
    // The host's own words for the acceptance, as its transcript shows them.
    const said = world.hosts['accept-known'].stats.transcripts
      .flat()
      .filter((line) => line.startsWith('S: 250 '))
      .map((line) => line.slice('S: 250 '.length));
    assert.ok(said.includes(first.evidence.smtp_reply?.message ?? ''), JSON.stringify(said));
    assert.equal(first.evidence.catch_all_probe.ran, true);
    const second = await verifier.verify('bob@accept.test');
    assert.equal(second.status, 'VALID');
    assert.equal(second.evidence.smtp_reply?.code, 250);
    assert.deepEqual(second.evidence.catch_all_probe, { ran: false, outcome: 'rejected', reply: null });
  });

  it('a catch-all domain: the probe ran and was accepted, with its 250; the flat score stands', async () => {
    const verifier = await freshVerifier();
    const result = await verifier.verify('anyone@catchall.test');
    assert.deepEqual([result.status, result.reason, result.score], ['PROBABLY_VALID', 'catch_all', 70]);
    assert.equal(result.checks.catch_all_confidence, null);
    assert.equal(result.evidence.smtp_reply?.code, 250);
    assert.equal(result.evidence.catch_all_probe.ran, true);
    assert.equal(result.evidence.catch_all_probe.outcome, 'accepted');
    assert.equal(result.evidence.catch_all_probe.reply?.code, 250);
    assert.equal(result.evidence.mx_address, world.hosts['catch-all'].host);
  });

  it('greylisted: the 451 4.7.1, on one line, and the probe inconclusive', async () => {
    const verifier = await freshVerifier();
    const result = await verifier.verify('alice@greylist.test');
    assert.equal(result.reason, 'greylisted');
    const reply = result.evidence.smtp_reply;
    assert.equal(reply?.code, 451);
    assert.equal(reply?.enhanced_code, '4.7.1');
    assert.match(reply?.message ?? '', /^Greylisted, please retry in \d+ seconds$/);
    assert.deepEqual(
      [result.evidence.catch_all_probe.ran, result.evidence.catch_all_probe.outcome],
      [true, 'inconclusive'],
    );
  });

  it('refused before RCPT: the banner or MAIL FROM reply and the host that gave it', async () => {
    const verifier = await freshVerifier();
    const banner = await verifier.verify('alice@blockbanner.test');
    assert.equal(banner.reason, 'blocked');
    assert.equal(banner.evidence.smtp_reply?.code, 554);
    assert.match(banner.evidence.smtp_reply?.message ?? '', /spamhaus/);
    assert.equal(banner.evidence.mx_host, 'mx.blockbanner.test');
    assert.equal(banner.evidence.mx_address, world.hosts['blocklist-banner'].host);
    assert.equal(banner.evidence.catch_all_probe.ran, false);

    const sender = await verifier.verify('alice@rejectfrom.test');
    assert.equal(sender.evidence.smtp_reply?.code, 550);
    assert.equal(sender.evidence.smtp_reply?.enhanced_code, '5.7.1');
    assert.equal(sender.evidence.mx_host, 'mx.rejectfrom.test');
  });

  it('a dead first MX: the evidence names the host that answered', async () => {
    const verifier = await freshVerifier();
    const result = await verifier.verify('alice@deadfirst.test');
    assert.equal(result.status, 'VALID');
    assert.equal(result.evidence.mx_host, 'mx2.deadfirst.test');
    assert.equal(result.evidence.mx_address, world.hosts['accept-known'].host);
  });

  it('an MX named like a provider’s: the provider is recognised, mailbox host or gateway', async () => {
    const verifier = await freshVerifier();
    const hosted = await verifier.verify('alice@workspace-hosted.test');
    assert.equal(hosted.status, 'VALID');
    assert.equal(hosted.evidence.mx_host, 'aspmx.l.google.com');
    assert.deepEqual(hosted.evidence.provider, {
      id: 'google',
      name: 'Google (Gmail, Google Workspace)',
      kind: 'mailbox_host',
    });
    const fronted = await verifier.verify('anyone@gateway-fronted.test');
    assert.equal(fronted.reason, 'catch_all');
    assert.equal(fronted.evidence.provider?.id, 'proofpoint');
    assert.equal(fronted.evidence.provider?.kind, 'security_gateway');
  });

  it('syntax invalid and NXDOMAIN: the empty evidence', async () => {
    const verifier = await freshVerifier();
    for (const address of ['john..doe@accept.test', 'jane@nxdomain.test']) {
      const result = await verifier.verify(address);
      assert.deepEqual(result.evidence, noEvidence(), address);
      assert.equal(result.checks.catch_all_confidence, null);
    }
  });

  it('probing off: no host or reply, yet the provider from the MX names', async () => {
    const verifier = await createVerifier(loadConfig({ ...world.env, MAILVET_SMTP_PROBE: 'false' }));
    const result = await verifier.verify('alice@workspace-hosted.test');
    assert.equal(result.reason, 'probe_skipped');
    assert.equal(result.evidence.mx_host, null);
    assert.equal(result.evidence.smtp_reply, null);
    assert.equal(result.evidence.provider?.id, 'google');
  });
});

/**
 * The SMTP probe through the whole pipeline, against the mail world: a real DNS server and real
 * SMTP servers on 127.0.0.x, one per behaviour. Wired exactly as production wires it
 * (createVerifier from configuration).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { createVerifier } from '../../../src/container/index.ts';
import type { Verifier } from '../../../src/verification/pipeline.ts';
import type { VerificationResult } from '../../../src/verification/report.ts';
import { type MailWorld, startMailWorld } from '../../mailworld/mail-world.ts';

let world: MailWorld;
let verifier: Verifier;

const verify = (address: string): Promise<VerificationResult> => verifier.verify(address);
const summary = (r: VerificationResult) => [
  r.checks.smtp,
  r.checks.catch_all,
  r.checks.mailbox_exists,
  r.status,
  r.reason,
];

before(async () => {
  world = await startMailWorld({ tune: { greylist: { retryAfterMs: 300 } } });
  verifier = await createVerifier(loadConfig({ ...world.env, MAILVET_SMTP_HELO: 'probe.mailvet.test' }));
});
after(async () => {
  await world.close();
});
beforeEach(() => world.resetStats());

describe('SMTP probe against the mail world', () => {
  it('a known mailbox at a domain that rejects unknown users: VALID, not catch-all', async () => {
    const result = await verify('alice@accept.test');
    assert.deepEqual(summary(result), ['deliverable', false, true, 'VALID', 'mailbox_confirmed']);
    assert.equal(result.score, 100);
  });

  it('an unknown mailbox (550 5.1.1): INVALID, mailbox does not exist', async () => {
    const result = await verify('nobody-here@accept.test');
    assert.deepEqual(summary(result), ['undeliverable', false, false, 'INVALID', 'mailbox_rejected']);
  });

  it('a catch-all domain: catch_all, PROBABLY_VALID 70', async () => {
    const result = await verify('anyone@catchall.test');
    assert.deepEqual(summary(result), ['catch_all', true, true, 'PROBABLY_VALID', 'catch_all']);
    assert.equal(result.score, 70);
  });

  it('greylisting (451): unknown, never INVALID; a later probe gets through', async () => {
    const first = await verify('alice@greylist.test');
    assert.deepEqual(summary(first), ['unknown', null, true, 'PROBABLY_VALID', 'greylisted']);
    assert.equal(first.score, 60);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const report = await verifier.report('alice@greylist.test');
    assert.equal(report.smtp?.verdict, 'deliverable');
  });

  it('greylisted results carry a re-check delay for list jobs', async () => {
    const report = await verifier.report('bob@greylist.test');
    assert.equal(report.smtp?.unknownReason, 'greylisted');
    assert.ok((report.smtp?.retryAfterSeconds ?? 0) >= 1);
  });

  it('mailbox full (552 5.2.2): PROBABLY_VALID 40, the mailbox exists', async () => {
    const result = await verify('alice@full.test');
    assert.deepEqual(summary(result), ['mailbox_full', false, true, 'PROBABLY_VALID', 'mailbox_full']);
    assert.equal(result.score, 40);
  });

  it('a disabled mailbox (550 5.2.1): INVALID mailbox_disabled', async () => {
    const result = await verify('alice@disabled.test');
    assert.deepEqual(summary(result), ['mailbox_disabled', false, false, 'INVALID', 'mailbox_disabled']);
  });

  it('a blocklist rejection (554 5.7.1 Spamhaus), at RCPT or at the banner: unknown blocked, never INVALID', async () => {
    for (const address of ['alice@blocklist.test', 'alice@blockbanner.test']) {
      const result = await verify(address);
      assert.deepEqual(summary(result), ['unknown', null, true, 'PROBABLY_VALID', 'blocked'], address);
    }
  });

  it('a server that rejects our MAIL FROM: unknown blocked', async () => {
    const result = await verify('alice@rejectfrom.test');
    assert.equal(result.checks.smtp, 'unknown');
    assert.equal(result.reason, 'blocked');
    assert.equal(result.status, 'PROBABLY_VALID');
  });

  it('a tarpit (accepts TCP, never answers): unknown timeout, bounded by the probe timeouts', async () => {
    const result = await verify('alice@tarpit.test');
    assert.deepEqual(summary(result), ['unknown', null, true, 'PROBABLY_VALID', 'timeout']);
    assert.equal(world.hosts.tarpit.stats.connections, 1);
  });

  it('a connection dropped at RCPT: unknown protocol_error', async () => {
    for (const address of ['alice@drop.test', 'alice@dropsilent.test']) {
      const result = await verify(address);
      assert.equal(result.checks.smtp, 'unknown', address);
      assert.equal(result.reason, 'protocol_error', address);
      assert.equal(result.status, 'PROBABLY_VALID', address);
    }
  });

  it('a slow banner within the command timeout still gets an answer', async () => {
    assert.equal((await verify('alice@slowbanner.test')).checks.smtp, 'deliverable');
  });

  it('STARTTLS is used when offered, even with an untrusted certificate', async () => {
    const report = await verifier.report('alice@tls.test');
    assert.equal(report.smtp?.verdict, 'deliverable');
    assert.deepEqual(report.smtp?.tls, { used: true, verified: false });
    assert.equal(world.hosts.starttls.stats.starttls, 1);
    assert.deepEqual((await verifier.report('alice@accept.test')).smtp?.tls, {
      used: false,
      verified: false,
    });
  });

  it('falls back to HELO when EHLO is refused', async () => {
    assert.equal((await verify('alice@helo.test')).checks.smtp, 'deliverable');
  });

  it('moves to the next MX when the first does not answer', async () => {
    const report = await verifier.report('alice@deadfirst.test');
    assert.equal(report.smtp?.verdict, 'deliverable');
    assert.equal(report.smtp?.mxHost, 'mx2.deadfirst.test');
  });

  it('orders scores: confirmed > catch-all > inconclusive > full > rejected', async () => {
    const [valid, catchAll, blocked, full, rejected] = await Promise.all(
      [
        'alice@accept.test',
        'x@catchall.test',
        'alice@blocklist.test',
        'alice@full.test',
        'zz@accept.test',
      ].map(verify),
    );
    const scores = [valid, catchAll, blocked, full, rejected].map((r) => r!.score);
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
    );
    assert.equal(new Set(scores).size, 5);
  });
});

describe('shared sessions', () => {
  it('50 addresses at one domain share at most 2 sessions, with the catch-all probe made once per session at most', async () => {
    const addresses = Array.from({ length: 50 }, (_, i) => `user${i + 1}@accept.test`);
    const results = await Promise.all(addresses.map(verify));
    assert.ok(results.every((r) => r.checks.smtp === 'deliverable'));
    const stats = world.hosts['accept-known'].stats;
    assert.ok(stats.connections <= 2, `${stats.connections} connections`);
    assert.ok(stats.rcptCommands <= 50 + stats.connections, `${stats.rcptCommands} RCPTs`);
  });

  it('a 452 "too many recipients" starts a new transaction on the same connection', async () => {
    const addresses = Array.from({ length: 8 }, (_, i) => `user${i + 1}@toomany.test`);
    const results = await Promise.all(addresses.map(verify));
    assert.deepEqual(
      results.map((r) => r.checks.smtp),
      new Array(8).fill('deliverable'),
    );
    const stats = world.hosts['too-many-recipients'].stats;
    assert.equal(stats.connections, 1);
    assert.ok(stats.mailCommands >= 3, `${stats.mailCommands} transactions`);
  });

  it('one slow domain does not hold up the others', async () => {
    const order: string[] = [];
    const tarpit = verify('alice@tarpit.test').then((result) => {
      order.push('tarpit');
      return result;
    });
    const quick = await verify('alice@accept.test').then((result) => {
      order.push('accept');
      return result;
    });
    const slow = await tarpit;
    assert.equal(quick.checks.smtp, 'deliverable');
    assert.equal(slow.reason, 'timeout');
    assert.deepEqual(order, ['accept', 'tarpit']);
  });

  it('never sends DATA', () => {
    const data = Object.values(world.hosts).reduce((sum, host) => sum + host.stats.dataCommands, 0);
    assert.equal(data, 0);
  });
});

describe('SSRF guard', () => {
  it('refuses loopback and private MX addresses unless MAILVET_SMTP_ALLOW_PRIVATE=true, without connecting', async () => {
    const guarded = await createVerifier(loadConfig({ ...world.env, MAILVET_SMTP_ALLOW_PRIVATE: 'false' }));
    for (const address of ['alice@accept.test', 'alice@private-mx.test']) {
      const result = await guarded.verify(address);
      assert.equal(result.checks.smtp, 'unknown', address);
      assert.equal(result.reason, 'probe_refused', address);
      assert.equal(result.status, 'PROBABLY_VALID', address);
    }
    assert.equal(world.hosts['accept-known'].stats.connections, 0);
  });

  it('never probes an address literal', async () => {
    const result = await verify('alice@[127.0.0.2]');
    assert.equal(result.checks.smtp, 'skipped');
    assert.equal(world.hosts['accept-known'].stats.connections, 0);
  });
});

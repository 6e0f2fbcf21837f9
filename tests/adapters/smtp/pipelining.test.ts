/**
 * PIPELINING (RFC 2920) in the SMTP probe, against the mail world's raw responder. It writes each
 * command into its connection's transcript as the command arrives and each reply as it sends it,
 * a few ms later: commands with no reply between them came in one round trip. Wired as
 * production wires it (createVerifier from configuration).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { createVerifier } from '../../../src/container/index.ts';
import type { Verifier } from '../../../src/verification/pipeline.ts';
import type { SmtpCheck } from '../../../src/verification/report.ts';
import { type MailWorld, startMailWorld } from '../../mailworld/mail-world.ts';

// Replies come 5 ms after their command: long enough that a pipelined group has fully arrived.
const REPLY_DELAY_MS = 5;
// The limited host says 452 "too many recipients" past this many accepted RCPTs.
const MAX_RECIPIENTS = 4;

let world: MailWorld;
let limited: MailWorld;

before(async () => {
  world = await startMailWorld({ tune: { 'reply-delay': { replyDelayMs: REPLY_DELAY_MS } } });
  limited = await startMailWorld({
    tune: { 'reply-delay': { replyDelayMs: REPLY_DELAY_MS, maxRecipients: MAX_RECIPIENTS } },
  });
});
after(async () => {
  await Promise.all([world.close(), limited.close()]);
});

/** A fresh verifier (cold catch-all memory, no cached results) on `on`. */
function verifierOn(on: MailWorld): Promise<Verifier> {
  return createVerifier(loadConfig({ ...on.env, MAILVET_SMTP_HELO: 'probe.mailvet.test' }));
}

/** Probes `addresses` together, so they share sessions as a bulk request does. */
async function probeTogether(verifier: Verifier, addresses: readonly string[]): Promise<SmtpCheck[]> {
  const reports = await Promise.all(addresses.map((address) => verifier.report(address)));
  return reports.map((report, i) => {
    assert.ok(report.smtp, `${addresses[i]} was not probed`);
    return report.smtp;
  });
}

/** The verbs the client sent in each turn: the commands that arrived between two replies. */
function clientTurns(transcript: readonly string[]): string[][] {
  const turns: string[][] = [];
  let turn: string[] = [];
  for (const line of transcript) {
    if (line.startsWith('C: ')) turn.push(line.slice(3).split(' ', 1)[0]!.toUpperCase());
    else if (line.startsWith('S: ') && turn.length > 0) {
      turns.push(turn);
      turn = [];
    }
  }
  if (turn.length > 0) turns.push(turn);
  return turns;
}

const rcptsIn = (turn: readonly string[]) => turn.filter((verb) => verb === 'RCPT').length;

/** The reply lines the server sent after the client's `n`-th turn (1-based), up to its next one. */
function repliesAfterTurn(transcript: readonly string[], n: number): string[] {
  const replies: string[] = [];
  let turns = 0;
  let inTurn = false;
  for (const line of transcript) {
    if (line.startsWith('C: ')) {
      if (!inTurn) turns++;
      inTurn = true;
      if (turns > n) break;
    } else if (line.startsWith('S: ')) {
      inTurn = false;
      if (turns === n) replies.push(line);
    }
  }
  return replies;
}

describe('pipelined transactions', () => {
  it('a server with PIPELINING gets MAIL FROM and every RCPT of a transaction in one round trip', async () => {
    world.resetStats();
    const locals = ['user1', 'nobody1', 'user2', 'user3', 'nobody2', 'user4', 'user5', 'user6'];
    const checks = await probeTogether(
      await verifierOn(world),
      locals.map((local) => `${local}@slow.test`),
    );
    const stats = world.hosts['reply-delay'].stats;
    assert.equal(stats.connections, 1);
    assert.equal(stats.transcripts.length, 1);
    // EHLO, then the whole transaction (the random catch-all address first); the QUIT that follows
    // may not have arrived yet when the answers are in.
    assert.deepEqual(
      clientTurns(stats.transcripts[0]!).filter((turn) => turn[0] !== 'QUIT'),
      [['EHLO'], ['MAIL', ...new Array(locals.length + 1).fill('RCPT')]],
    );
    assert.equal(checks[0]!.catchAllProbe?.outcome, 'rejected');
  });

  it('maps each reply of a pipelined group to its own address: a 550 decides only the address it names', async () => {
    const locals = ['nobody1', 'user1', 'user2', 'nobody2', 'nobody3', 'user3', 'user4', 'nobody4'];
    const addresses = locals.map((local) => `${local}@slow.test`);
    const checks = await probeTogether(await verifierOn(world), addresses);
    checks.forEach((check, i) => {
      const address = addresses[i]!;
      if (address.startsWith('nobody')) {
        assert.equal(check.verdict, 'undeliverable', address);
        assert.equal(check.reply?.code, 550, address);
        // The mail world's 550 names the recipient it refused.
        assert.ok(check.reply?.text.includes(`<${address}>`), `${address}: ${check.reply?.text}`);
      } else {
        assert.equal(check.verdict, 'deliverable', address);
        assert.equal(check.reply?.code, 250, address);
      }
    });
  });

  it('a 452 mid-pipeline re-queues the rest into smaller transactions on the same connection, never undeliverable', async () => {
    limited.resetStats();
    const locals = [
      'user1',
      'nobody1',
      'user2',
      'user3',
      'user4',
      'user5',
      'nobody2',
      'user6',
      'user7',
      'user8',
      'user9',
      'user10',
    ];
    const addresses = locals.map((local) => `${local}@slow.test`);
    const checks = await probeTogether(await verifierOn(limited), addresses);
    checks.forEach((check, i) => {
      const address = addresses[i]!;
      const expected = address.startsWith('nobody') ? 'undeliverable' : 'deliverable';
      assert.equal(check.verdict, expected, address);
      assert.notEqual(check.reply?.code, 452, address);
      if (expected === 'undeliverable') assert.ok(check.reply?.text.includes(`<${address}>`), address);
    });
    const stats = limited.hosts['reply-delay'].stats;
    assert.equal(stats.connections, 1);
    const transcript = stats.transcripts[0]!;
    const transactions = clientTurns(transcript).filter((turn) => turn.includes('MAIL'));
    assert.ok(transactions.length >= 3, `${transactions.length} transactions`);
    // Each transaction is one round trip: RSET and MAIL FROM with its RCPTs...
    for (const turn of transactions.slice(1)) assert.deepEqual(turn.slice(0, 2), ['RSET', 'MAIL']);
    // ...the first asked everyone (and the random address), and met the 452...
    const first = transactions[0]!;
    assert.equal(rcptsIn(first), locals.length + 1);
    const firstReplies = repliesAfterTurn(transcript, 2).slice(1);
    const taken = firstReplies.findIndex((line) => line.startsWith('S: 452'));
    assert.ok(taken > 0, firstReplies.join('\n'));
    // ...and no later one asks more than got through before it.
    for (const turn of transactions.slice(1)) assert.ok(rcptsIn(turn) <= taken, JSON.stringify(transactions));
  });

  it('a connection that ends mid-group leaves the unanswered addresses unknown, never undeliverable', async () => {
    const checks = await probeTogether(
      await verifierOn(world),
      ['alice', 'bob', 'carol'].map((local) => `${local}@drop.test`),
    );
    for (const check of checks) {
      assert.equal(check.verdict, 'unknown');
      assert.equal(check.unknownReason, 'protocol_error');
    }
  });

  it('a refused MAIL FROM in a pipelined group makes every address unknown (the RCPT replies are not read as verdicts)', async () => {
    const checks = await probeTogether(
      await verifierOn(world),
      ['alice', 'bob', 'nobody1'].map((local) => `${local}@rejectfrom.test`),
    );
    for (const check of checks) {
      assert.equal(check.verdict, 'unknown');
      assert.equal(check.unknownReason, 'blocked');
      assert.equal(check.reply?.code, 550);
    }
  });
});

describe('a server without PIPELINING', () => {
  it('gets one command at a time, each after the reply to the one before', async () => {
    world.resetStats();
    const locals = ['alice', 'bob', 'nobody1', 'carol'];
    const addresses = locals.map((local) => `${local}@helo.test`);
    const checks = await probeTogether(await verifierOn(world), addresses);
    assert.deepEqual(
      checks.map((check) => check.verdict),
      ['deliverable', 'deliverable', 'undeliverable', 'deliverable'],
    );
    assert.ok(checks[2]!.reply?.text.includes('<nobody1@helo.test>'));
    const stats = world.hosts['helo-only'].stats;
    assert.equal(stats.connections, 1);
    const turns = clientTurns(stats.transcripts[0]!);
    assert.ok(
      turns.every((turn) => turn.length === 1),
      JSON.stringify(turns),
    );
    assert.equal(turns.filter((turn) => turn[0] === 'RCPT').length, locals.length + 1);
  });
});

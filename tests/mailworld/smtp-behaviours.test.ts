import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BehaviourName } from './behaviours.ts';
import { type MailWorld, startMailWorld } from './mail-world.ts';
import { ConnectionClosed, SmtpTestClient } from './smtp-test-client.ts';

const GREYLIST_MS = 300;
const BANNER_MS = 250;

let world: MailWorld;

before(async () => {
  world = await startMailWorld({
    tune: { greylist: { retryAfterMs: GREYLIST_MS }, 'slow-banner': { bannerDelayMs: BANNER_MS } },
  });
});
after(() => world.close());

/** Connects to a behaviour's host and reads its banner. */
async function open(behaviour: BehaviourName): Promise<SmtpTestClient> {
  const host = world.hosts[behaviour];
  const client = await SmtpTestClient.connect(host.host, host.port);
  const banner = await client.readReply();
  assert.equal(banner.code, 220, banner.lines.join('\n'));
  return client;
}

/** Opens a session up to an accepted MAIL FROM. */
async function transaction(behaviour: BehaviourName, sender = 'probe@mailvet.test'): Promise<SmtpTestClient> {
  const client = await open(behaviour);
  assert.equal((await client.command('EHLO probe.mailvet.test')).code, 250);
  assert.equal((await client.command(`MAIL FROM:<${sender}>`)).code, 250);
  return client;
}

describe('scripted behaviours', () => {
  test('accept-known: 220 banner, EHLO without STARTTLS, known 250, unknown 550 5.1.1', async () => {
    const client = await open('accept-known');
    const ehlo = await client.command('EHLO probe.mailvet.test');
    assert.equal(ehlo.code, 250);
    assert.match(ehlo.lines[0] ?? '', /^250-mx\.accept\.test/);
    assert.ok(!ehlo.lines.some((line) => line.includes('STARTTLS')));
    assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
    assert.equal((await client.command('RCPT TO:<alice@accept.test>')).code, 250);
    assert.equal(
      (await client.command('RCPT TO:<ALICE@accept.test>')).code,
      250,
      'local parts are case-insensitive',
    );
    const unknown = await client.command('RCPT TO:<nobody-here@accept.test>');
    assert.equal(unknown.code, 550);
    assert.equal(unknown.text, '5.1.1 <nobody-here@accept.test>: Recipient address rejected: User unknown');
    assert.equal((await client.command('QUIT')).code, 221);
    await client.closed();
  });

  test('catch-all accepts any recipient', async () => {
    const client = await transaction('catch-all');
    assert.equal((await client.command('RCPT TO:<x7f3kq9zz-random@catchall.test>')).code, 250);
    assert.equal((await client.command('RCPT TO:<alice@catchall.test>')).code, 250);
    client.destroy();
  });

  test('greylist: 451 4.7.1 on the first tries, accepted after the delay, per recipient', async () => {
    const client = await transaction('greylist');
    const first = await client.command('RCPT TO:<alice@greylist.test>');
    assert.equal(first.code, 451);
    assert.match(first.text, /^4\.7\.1 Greylisted, please retry in \d+ seconds$/);
    assert.equal((await client.command('RCPT TO:<alice@greylist.test>')).code, 451, 'too soon');
    await new Promise((resolve) => setTimeout(resolve, GREYLIST_MS + 50));
    assert.equal((await client.command('RCPT TO:<alice@greylist.test>')).code, 250);
    assert.equal(
      (await client.command('RCPT TO:<bob@greylist.test>')).code,
      451,
      'a new triplet is greylisted',
    );
    client.destroy();
  });

  test('greylist: once past the delay, unknown users are still rejected', async () => {
    const client = await transaction('greylist');
    assert.equal((await client.command('RCPT TO:<ghost@greylist.test>')).code, 451);
    await new Promise((resolve) => setTimeout(resolve, GREYLIST_MS + 50));
    const retry = await client.command('RCPT TO:<ghost@greylist.test>');
    assert.equal(retry.code, 550);
    assert.match(retry.text, /^5\.1\.1 /);
    client.destroy();
  });

  test('mailbox-full: 552 5.2.2 for the mailbox, 550 5.1.1 for unknown users', async () => {
    const client = await transaction('mailbox-full');
    const full = await client.command('RCPT TO:<alice@full.test>');
    assert.deepEqual([full.code, full.text], [552, '5.2.2 Mailbox full']);
    assert.equal((await client.command('RCPT TO:<ghost@full.test>')).code, 550);
    client.destroy();
  });

  test('disabled: 550 5.2.1 account disabled', async () => {
    const client = await transaction('disabled');
    const disabled = await client.command('RCPT TO:<bob@disabled.test>');
    assert.deepEqual(
      [disabled.code, disabled.text],
      [550, '5.2.1 The email account that you tried to reach is disabled'],
    );
    client.destroy();
  });

  test('blocklist: 554 5.7.1 Spamhaus-style block at RCPT, naming the client address', async () => {
    const client = await transaction('blocklist');
    const blocked = await client.command('RCPT TO:<alice@blocklist.test>');
    assert.equal(blocked.code, 554);
    assert.equal(
      blocked.text,
      '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org',
    );
    client.destroy();
  });

  test('blocklist-banner: 554 5.7.1 instead of the banner, then the connection closes', async () => {
    const host = world.hosts['blocklist-banner'];
    const client = await SmtpTestClient.connect(host.host, host.port);
    const banner = await client.readReply();
    assert.equal(banner.code, 554);
    assert.match(
      banner.text,
      /^5\.7\.1 Service unavailable; Client host \[127\.0\.0\.1\] blocked using zen\.spamhaus\.org$/,
    );
    await client.closed();
  });

  test('tarpit: accepts the connection and says nothing, even to EHLO', async () => {
    const host = world.hosts.tarpit;
    const before = host.stats.connections;
    const client = await SmtpTestClient.connect(host.host, host.port);
    assert.equal(await client.silentFor(250), true);
    client.send('EHLO probe.mailvet.test');
    assert.equal(await client.silentFor(250), true);
    assert.equal(host.stats.connections, before + 1);
    client.destroy();
  });

  test('drop-after-rcpt: replies to the first RCPT, then closes', async () => {
    const client = await transaction('drop-after-rcpt');
    assert.equal((await client.command('RCPT TO:<alice@drop.test>')).code, 250);
    await client.closed();
    await assert.rejects(client.readReply(500), ConnectionClosed);
  });

  test('drop-at-rcpt: closes instead of replying to RCPT', async () => {
    const client = await transaction('drop-at-rcpt');
    await assert.rejects(client.command('RCPT TO:<alice@dropsilent.test>'), ConnectionClosed);
    assert.equal(client.isClosed, true);
  });

  test('slow-banner: the banner comes only after the delay', async () => {
    const host = world.hosts['slow-banner'];
    const started = Date.now();
    const client = await SmtpTestClient.connect(host.host, host.port);
    assert.equal(await client.silentFor(BANNER_MS - 100), true);
    assert.equal((await client.readReply()).code, 220);
    assert.ok(Date.now() - started >= BANNER_MS - 10, `banner after ${Date.now() - started} ms`);
    assert.equal((await client.command('EHLO probe.mailvet.test')).code, 250);
    client.destroy();
  });

  test('reject-mail-from: 550 5.7.1 at MAIL FROM, so RCPT has no transaction', async () => {
    const client = await open('reject-mail-from');
    await client.command('EHLO probe.mailvet.test');
    const mail = await client.command('MAIL FROM:<probe@mailvet.test>');
    assert.deepEqual([mail.code, mail.text], [550, '5.7.1 Sender rejected']);
    assert.equal((await client.command('RCPT TO:<alice@rejectfrom.test>')).code, 503);
    client.destroy();
  });

  test('too-many-recipients: 452 4.5.3 past 3 per transaction; RSET starts over', async () => {
    const client = await transaction('too-many-recipients');
    for (const name of ['alice', 'bob', 'carol']) {
      assert.equal((await client.command(`RCPT TO:<${name}@toomany.test>`)).code, 250);
    }
    const fourth = await client.command('RCPT TO:<dave@toomany.test>');
    assert.deepEqual([fourth.code, fourth.text], [452, '4.5.3 Error: too many recipients']);
    assert.equal((await client.command('RSET')).code, 250);
    assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
    assert.equal((await client.command('RCPT TO:<dave@toomany.test>')).code, 250);
    client.destroy();
  });

  test('reply-delay: each reply comes 20 ms after its command, pipelined replies stay in order', async () => {
    const host = world.hosts['reply-delay'];
    const started = Date.now();
    const client = await SmtpTestClient.connect(host.host, host.port);
    await client.readReply();
    client.send('EHLO probe.mailvet.test');
    client.send('MAIL FROM:<probe@mailvet.test>');
    client.send('RCPT TO:<alice@slow.test>');
    client.send('RCPT TO:<ghost@slow.test>');
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await client.readReply()).code);
    assert.deepEqual(codes, [250, 250, 250, 550]);
    // Banner, then one round of four pipelined commands: two delays, not five.
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 2 * 20 - 5, `replies took ${elapsed} ms`);
    client.destroy();
  });

  test('helo-only: EHLO is 502, HELO works and the session goes on', async () => {
    const client = await open('helo-only');
    const ehlo = await client.command('EHLO probe.mailvet.test');
    assert.deepEqual([ehlo.code, ehlo.text], [502, '5.5.2 Error: command not recognized']);
    const helo = await client.command('HELO probe.mailvet.test');
    assert.deepEqual([helo.code, helo.text], [250, 'mx.helo.test']);
    assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
    assert.equal((await client.command('RCPT TO:<alice@helo.test>')).code, 250);
    client.destroy();
  });
});

describe('STARTTLS', () => {
  test('is offered, really upgrades the connection, and is recorded', async () => {
    const host = world.hosts.starttls;
    host.reset();
    const client = await open('starttls');
    const ehlo = await client.command('EHLO probe.mailvet.test');
    assert.ok(
      ehlo.lines.some((line) => /^250[- ]STARTTLS$/.test(line)),
      ehlo.lines.join('\n'),
    );
    assert.equal((await client.command('STARTTLS')).code, 220);
    const secure = await client.startTls('mx.tls.test');
    assert.equal(secure.encrypted, true);
    assert.match(secure.getProtocol() ?? '', /^TLSv1\.[23]$/);
    assert.equal(secure.authorized, false, 'self-signed: not trusted');
    assert.equal(secure.getPeerCertificate().subject?.CN, 'mx.tls.test');
    const again = await client.command('EHLO probe.mailvet.test');
    assert.equal(again.code, 250);
    assert.ok(!again.lines.some((line) => line.includes('STARTTLS')), 'not offered twice');
    assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
    assert.equal((await client.command('RCPT TO:<alice@tls.test>')).code, 250);
    assert.equal((await client.command('QUIT')).code, 221);
    await client.closed();
    assert.equal(host.stats.starttls, 1);
    assert.ok(host.stats.transcripts[0]?.some((line) => line.startsWith('* TLS established (TLSv1.')));
  });

  test('hosts other than the TLS one do not offer or accept STARTTLS', async () => {
    for (const behaviour of ['accept-known', 'reply-delay'] as const) {
      const client = await open(behaviour);
      await client.command('EHLO probe.mailvet.test');
      const reply = await client.command('STARTTLS');
      assert.ok(reply.code >= 500, `${behaviour}: ${reply.code}`);
      client.destroy();
    }
  });
});

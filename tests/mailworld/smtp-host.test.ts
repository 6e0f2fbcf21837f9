import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SmtpBehaviour } from './behaviours.ts';
import { type SmtpHost, startSmtpHost } from './smtp-server.ts';
import { SmtpTestClient } from './smtp-test-client.ts';

// One behaviour per implementation: accept-known runs on smtp-server, reply-delay on the raw responder.
const IMPLEMENTATIONS: Array<{ label: string; behaviour: SmtpBehaviour }> = [
  { label: 'smtp-server host', behaviour: { behaviour: 'accept-known' } },
  { label: 'raw host', behaviour: { behaviour: 'reply-delay', replyDelayMs: 1 } },
];

async function withHost(behaviour: SmtpBehaviour, run: (host: SmtpHost) => Promise<void>): Promise<void> {
  const host = await startSmtpHost({ ...behaviour, host: '127.0.0.2' });
  try {
    await run(host);
  } finally {
    await host.close();
  }
}

async function greeted(host: SmtpHost): Promise<SmtpTestClient> {
  const client = await SmtpTestClient.connect(host.host, host.port);
  assert.equal((await client.readReply()).code, 220);
  assert.equal((await client.command('EHLO probe.mailvet.test')).code, 250);
  return client;
}

for (const { label, behaviour } of IMPLEMENTATIONS) {
  describe(label, () => {
    test('refuses DATA with 554 even after an accepted RCPT, and counts it', async () => {
      await withHost(behaviour, async (host) => {
        const client = await greeted(host);
        assert.equal((await client.command('MAIL FROM:<probe@mailvet.test>')).code, 250);
        assert.equal((await client.command('RCPT TO:<alice@accept.test>')).code, 250);
        const data = await client.command('DATA');
        assert.equal(data.code, 554);
        assert.match(data.text, /^5\.7\.1 /);
        assert.equal((await client.command('QUIT')).code, 221, 'still in command mode after DATA');
        await client.closed();
        assert.equal(host.stats.dataCommands, 1);
      });
    });

    test('counts connections, MAIL, RCPT and RSET, with one transcript per connection', async () => {
      await withHost(behaviour, async (host) => {
        const first = await greeted(host);
        for (const recipient of ['alice', 'ghost']) {
          await first.command('MAIL FROM:<probe@mailvet.test>');
          await first.command(`RCPT TO:<${recipient}@accept.test>`);
          await first.command(`RCPT TO:<bob@accept.test>`);
          await first.command('RSET');
        }
        await first.command('QUIT');
        await first.closed();
        const second = await greeted(host);

        const { stats } = host;
        assert.deepEqual(
          [stats.connections, stats.mailCommands, stats.rcptCommands, stats.rsetCommands, stats.dataCommands],
          [2, 2, 4, 2, 0],
        );
        assert.equal(stats.starttls, 0);
        assert.equal(stats.transcripts.length, 2);
        const [transcript] = stats.transcripts;
        assert.ok(transcript?.includes('C: RCPT TO:<ghost@accept.test>'));
        assert.ok(
          transcript?.includes('S: 550 5.1.1 <ghost@accept.test>: Recipient address rejected: User unknown'),
          transcript?.join('\n'),
        );
        assert.match(
          transcript?.find((line) => line.startsWith('S: 220')) ?? '',
          /^S: 220 mx\.mailworld\.test /,
        );

        host.reset();
        assert.deepEqual([stats.connections, stats.rcptCommands, stats.transcripts.length], [0, 0, 0]);
        // A connection still open across the reset goes on in a fresh transcript.
        assert.equal((await second.command('NOOP')).code, 250);
        assert.deepEqual(stats.transcripts, [['C: NOOP', stats.transcripts[0]?.[1]]]);
        assert.match(stats.transcripts[0]?.[1] ?? '', /^S: 250 /);
        second.destroy();
      });
    });

    test('counts a connection that leaves before any banner', async () => {
      await withHost(behaviour, async (host) => {
        const client = await SmtpTestClient.connect(host.host, host.port);
        client.destroy();
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(host.stats.connections, 1);
      });
    });

    test('honours maxRecipients with 452 4.5.3, reset by RSET', async () => {
      await withHost({ ...behaviour, maxRecipients: 2 }, async (host) => {
        const client = await greeted(host);
        await client.command('MAIL FROM:<probe@mailvet.test>');
        const codes = [];
        for (const name of ['alice', 'ghost', 'bob', 'carol']) {
          codes.push((await client.command(`RCPT TO:<${name}@accept.test>`)).code);
        }
        // Only accepted recipients count towards the limit.
        assert.deepEqual(codes, [250, 550, 250, 452]);
        await client.command('RSET');
        await client.command('MAIL FROM:<probe@mailvet.test>');
        assert.equal((await client.command('RCPT TO:<carol@accept.test>')).code, 250);
        client.destroy();
      });
    });

    test('knows the mailboxes it is given, case-insensitively', async () => {
      await withHost({ ...behaviour, mailboxes: ['Zoe'] }, async (host) => {
        const client = await greeted(host);
        await client.command('MAIL FROM:<>');
        assert.equal((await client.command('RCPT TO:<zoe@accept.test>')).code, 250);
        assert.equal((await client.command('RCPT TO:<alice@accept.test>')).code, 550);
        client.destroy();
      });
    });

    test('close() frees the port and drops open connections', async () => {
      const host = await startSmtpHost({ ...behaviour, host: '127.0.0.2' });
      const client = await greeted(host);
      const started = Date.now();
      await host.close();
      assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
      await client.closed(1000);
      await assert.rejects(SmtpTestClient.connect(host.host, host.port), { code: 'ECONNREFUSED' });
    });
  });
}

describe('startSmtpHost', () => {
  test('runs on a fixed port when asked, and reports a busy one', async () => {
    const first = await startSmtpHost({ behaviour: 'catch-all', host: '127.0.0.3' });
    try {
      const second = await startSmtpHost({ behaviour: 'catch-all', host: '127.0.0.4', port: first.port });
      assert.equal(second.port, first.port);
      await second.close();
      await assert.rejects(startSmtpHost({ behaviour: 'tarpit', host: '127.0.0.3', port: first.port }), {
        code: 'EADDRINUSE',
      });
    } finally {
      await first.close();
    }
  });
});

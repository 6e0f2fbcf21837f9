/**
 * The relay adapter against a real SMTP server on loopback (tests/mailworld/mail-sink.ts):
 * plain text for a loopback relay, STARTTLS required and its certificate checked, AUTH, and
 * failures that never carry the relay's password.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { SmtpMailer } from '../../../src/adapters/mail/smtp-mailer.ts';
import { loadConfig } from '../../../src/config.ts';
import { type MailSink, startMailSink } from '../../mailworld/mail-sink.ts';

const CA = readFileSync(new URL('../../fixtures/tls/mailworld-cert.pem', import.meta.url));
const PASSWORD = 'relay-pa55word-do-not-log';
const FROM = 'Mailvet <no-reply@mailvet.test>';
const MESSAGE = { to: 'jane@example.com', subject: 'Hello', text: 'A line.\nAnother line.\n' };

const sinks: MailSink[] = [];
after(async () => {
  await Promise.all(sinks.map((sink) => sink.close()));
});
async function sink(options: Parameters<typeof startMailSink>[0]): Promise<MailSink> {
  const started = await startMailSink(options);
  sinks.push(started);
  return started;
}

/** The adapter as the configuration makes it from `url`. */
function mailerFor(url: string, options: ConstructorParameters<typeof SmtpMailer>[2] = {}): SmtpMailer {
  const relay = loadConfig({ MAILVET_MAIL_URL: url, MAILVET_MAIL_FROM: FROM }).MAILVET_MAIL_URL!;
  return new SmtpMailer(relay, FROM, {
    timeoutsMs: { connect: 5000, greeting: 5000, socket: 5000 },
    ...options,
  });
}

describe('the SMTP relay adapter', () => {
  it('sends over plain text to a loopback relay with ?tls=none, with AUTH', async () => {
    const relay = await sink({ auth: { user: 'mailvet', password: PASSWORD } });
    await mailerFor(relay.url).send(MESSAGE);
    const received = await relay.next();
    assert.equal(received.from, 'no-reply@mailvet.test');
    assert.deepEqual(received.to, ['jane@example.com']);
    assert.equal(received.subject, 'Hello');
    assert.equal(received.headers.from, FROM);
    assert.equal(received.text.trim(), MESSAGE.text.trim());
    assert.equal(received.secure, false);
  });

  it('upgrades with STARTTLS before AUTH and the message, checking the certificate', async () => {
    const relay = await sink({ starttls: true, auth: { user: 'mailvet', password: PASSWORD } });
    await mailerFor(relay.url, { ca: CA }).send(MESSAGE);
    const received = await relay.next();
    assert.equal(received.secure, true);
    assert.equal(received.subject, 'Hello');
  });

  it('refuses a relay whose certificate it cannot check, and says so without the password', async () => {
    const relay = await sink({ starttls: true, auth: { user: 'mailvet', password: PASSWORD } });
    const failure = await mailerFor(relay.url)
      .send(MESSAGE)
      .then(
        () => assert.fail('sent through an unchecked certificate'),
        (error: Error) => error,
      );
    assert.match(failure.message, /did not take the message/);
    assert.ok(!failure.message.includes(PASSWORD));
    assert.equal(relay.messages.length, 0);
  });

  it('requires STARTTLS on smtp://: a relay that does not offer it gets neither the password nor the message', async () => {
    const relay = await sink({ auth: { user: 'mailvet', password: PASSWORD } });
    const url = relay.url.replace('?tls=none', '');
    const failure = await mailerFor(url, { ca: CA })
      .send(MESSAGE)
      .then(
        () => assert.fail('sent in plain text'),
        (error: Error) => error,
      );
    assert.match(failure.message, /did not take the message/);
    assert.ok(!failure.message.includes(PASSWORD));
    assert.equal(relay.messages.length, 0);
  });

  it('reports a refused login by its code, never with the password', async () => {
    const relay = await sink({ auth: { user: 'mailvet', password: 'the-right-one' } });
    const failure = await mailerFor(relay.url.replace('the-right-one', PASSWORD))
      .send(MESSAGE)
      .then(
        () => assert.fail('signed in with a wrong password'),
        (error: Error) => error,
      );
    assert.match(failure.message, /EAUTH 535/);
    assert.ok(!failure.message.includes(PASSWORD));
    assert.ok(!JSON.stringify(failure).includes(PASSWORD));
  });
});

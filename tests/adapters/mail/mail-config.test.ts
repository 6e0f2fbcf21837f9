/**
 * MAILVET_MAIL_URL and MAILVET_MAIL_FROM: the forms the relay takes, and a bad value stops the
 * start with a message naming the variable and what is wrong, never quoting the relay's password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';

const FROM = 'no-reply@example.com';
const SECRET = 's3cret-Relay-pw';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  return assert.fail('the configuration was accepted');
}

describe('the mail relay settings', () => {
  it('reads smtp:// as STARTTLS on 587, smtps:// as TLS on 465, and ?tls=none on loopback as plain text', () => {
    const relay = (url: string) =>
      loadConfig({ MAILVET_MAIL_URL: url, MAILVET_MAIL_FROM: FROM }).MAILVET_MAIL_URL;
    assert.deepEqual(relay(`smtp://mailvet:${SECRET}@smtp.example.com`), {
      host: 'smtp.example.com',
      port: 587,
      tls: 'starttls',
      user: 'mailvet',
      password: SECRET,
    });
    assert.deepEqual(relay('smtps://a%40b:p%3Aw@smtp.example.com'), {
      host: 'smtp.example.com',
      port: 465,
      tls: 'implicit',
      user: 'a@b',
      password: 'p:w',
    });
    assert.deepEqual(relay('smtp://[::1]:2525?tls=none'), { host: '::1', port: 2525, tls: 'none' });
    assert.deepEqual(relay('smtp://localhost:25?tls=none'), { host: 'localhost', port: 25, tls: 'none' });
    assert.equal(loadConfig({}).MAILVET_MAIL_URL, undefined);
  });

  it('refuses a bad URL by name, never quoting its password', () => {
    for (const [url, why] of [
      [`http://u:${SECRET}@smtp.example.com`, /must be smtp:\/\//],
      [`smtp://u:${SECRET}@smtp.example.com/path`, /has a path/],
      [`smtp://u:${SECRET}@smtp.example.com?tls=none`, /plain text\) is for a relay on this machine only/],
      [`smtps://u:${SECRET}@127.0.0.1?tls=none`, /is for smtp:\/\//],
      [`smtp://u:${SECRET}@smtp.example.com?verify=no`, /takes no query/],
      [`smtp://u@smtp.example.com`, /both a user and a password/],
      [`smtp://u:${SECRET}@smtp.example.com:0`, /port/],
      [`not a url ${SECRET}`, /not a URL/],
    ] as const) {
      const message = problemOf({ MAILVET_MAIL_URL: url, MAILVET_MAIL_FROM: FROM });
      assert.match(message, /MAILVET_MAIL_URL: /);
      assert.match(message, why, url);
      assert.ok(!message.includes(SECRET), `the password is in: ${message}`);
    }
  });

  it('needs a From with a relay, on one line', () => {
    assert.match(
      problemOf({ MAILVET_MAIL_URL: 'smtp://127.0.0.1:2525?tls=none' }),
      /MAILVET_MAIL_FROM: is required with MAILVET_MAIL_URL/,
    );
    for (const from of ['nobody', 'a@b.c\r\nBcc: victim@example.com', 'Name <no address>'])
      assert.match(problemOf({ MAILVET_MAIL_FROM: from }), /MAILVET_MAIL_FROM: must be an address/);
    assert.equal(
      loadConfig({ MAILVET_MAIL_FROM: 'Mailvet <no-reply@example.com>' }).MAILVET_MAIL_FROM,
      'Mailvet <no-reply@example.com>',
    );
  });
});

/**
 * MAILVET_SMTP_PROXY parsing: the forms it takes, and start-up errors that name the bad entry
 * without ever quoting its password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';

const proxies = (value: string | undefined) =>
  loadConfig(value === undefined ? {} : { MAILVET_SMTP_PROXY: value }).MAILVET_SMTP_PROXY;

/** The ConfigError problems of `value`. */
function problemsOf(value: string): string[] {
  try {
    loadConfig({ MAILVET_SMTP_PROXY: value });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail(`${value} was accepted`);
}

describe('MAILVET_SMTP_PROXY', () => {
  it('unset or blank: no proxy (direct connections)', () => {
    assert.deepEqual(proxies(undefined), []);
    assert.deepEqual(proxies(' '), []);
  });

  it('host and port; user and password (percent-decoded); #helo=; IPv6 hosts', () => {
    assert.deepEqual(proxies('socks5://proxy.example:1080'), [{ host: 'proxy.example', port: 1080 }]);
    assert.deepEqual(proxies('socks5://mailvet:p%40ss%2Cword@10.0.0.5:1080#helo=mx1.example.com'), [
      { host: '10.0.0.5', port: 1080, user: 'mailvet', password: 'p@ss,word', helo: 'mx1.example.com' },
    ]);
    assert.deepEqual(proxies('socks5://[::1]:9050/'), [{ host: '::1', port: 9050 }]);
    assert.deepEqual(proxies('socks5://127.0.0.1:1080#helo=[192.0.2.7]'), [
      { host: '127.0.0.1', port: 1080, helo: '[192.0.2.7]' },
    ]);
  });

  it('several, comma-separated, in order; the same proxy with another user is another egress', () => {
    assert.deepEqual(
      proxies(
        ' socks5://a.example:1080#helo=a.example , socks5://u1:x@gate.example:7000,socks5://u2:y@gate.example:7000,',
      ),
      [
        { host: 'a.example', port: 1080, helo: 'a.example' },
        { host: 'gate.example', port: 7000, user: 'u1', password: 'x' },
        { host: 'gate.example', port: 7000, user: 'u2', password: 'y' },
      ],
    );
  });

  const bad: Array<[string, RegExp]> = [
    ['proxy.example:1080', /entry 1 \(proxy\.example:1080\): must start with socks5:\/\//],
    ['socks5h://proxy.example:1080', /must start with socks5:\/\//],
    ['http://proxy.example:3128', /must start with socks5:\/\//],
    ['socks5://proxy.example', /needs a host and a port/],
    ['socks5://proxy.example:0', /needs a host and a port/],
    ['socks5://proxy.example:99999', /not a URL of the form/],
    ['socks5://proxy.example:1080/path', /has a path or query/],
    ['socks5://proxy.example:1080?x=1', /has a path or query/],
    ['socks5://user@proxy.example:1080', /needs both a user and a password/],
    ['socks5://proxy.example:1080#mx1.example.com', /#helo=<host name>/],
    ['socks5://proxy.example:1080#helo=bad%20name', /#helo=<host name>/],
    [`socks5://${'u'.repeat(256)}:p@proxy.example:1080`, /at most 255 bytes/],
  ];
  for (const [value, expected] of bad) {
    it(`refuses ${value.length > 60 ? `${value.slice(0, 40)}…` : value}`, () => {
      const problems = problemsOf(value);
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, /^MAILVET_SMTP_PROXY: entry 1 /);
      assert.match(problems[0]!, expected);
    });
  }

  it('names the bad entry by number, with its password masked, whatever is wrong with it', () => {
    const secret = 'hunter2-secret';
    const cases = [
      `socks5://ok.example:1080,socks5h://mailvet:${secret}@proxy.example:1080`,
      `socks5://ok.example:1080,socks5://mailvet:${secret}@proxy.example:1080/x`,
      `socks5://ok.example:1080,socks5://mailvet:${secret}@proxy.example:99999`,
      // A '#' in an unencoded password cuts the URL short: still never quoted.
      `socks5://ok.example:1080,socks5://mailvet:${secret}#x@proxy.example:1080`,
      `socks5://ok.example:1080,mailvet:${secret}@proxy.example:1080`,
    ];
    for (const value of cases) {
      const [problem] = problemsOf(value);
      assert.match(problem ?? '', /^MAILVET_SMTP_PROXY: entry 2 \(\S*mailvet:\*\*\*@proxy\.example:/, value);
      assert.ok(!problem?.includes(secret), problem);
      assert.ok(!problem?.includes('hunter2'), problem);
    }
  });

  it('refuses the same proxy and user listed twice', () => {
    const [problem] = problemsOf('socks5://u:a@p.example:1080,socks5://u:b@p.example:1080');
    assert.equal(problem, 'MAILVET_SMTP_PROXY: entry 2 (socks5://u:***@p.example:1080): listed twice');
  });

  it('the ConfigError message of a bad entry never holds the password', () => {
    try {
      loadConfig({ MAILVET_SMTP_PROXY: 'socks5://u:topsecret@p.example' });
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.match(
        error.message,
        /MAILVET_SMTP_PROXY: entry 1 \(socks5:\/\/u:\*\*\*@p\.example\): needs a host and a port/,
      );
      assert.ok(!error.message.includes('topsecret'));
    }
  });
});

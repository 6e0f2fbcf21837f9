/**
 * `mailvet verify` at a catch-all domain: without an account it still says how confident it is,
 * from the address itself, the domain's posture and the other addresses of the same command, and
 * shows why (`--json`: every signal; a line: the confidence).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { VerificationResult } from '../../src/verification/report.ts';
import { type MailWorld, startMailWorld } from '../mailworld/mail-world.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let world: MailWorld;
before(async () => {
  world = await startMailWorld();
});
after(() => world.close());

function mailvet(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, 'verify', ...args],
      { env: { ...process.env, ...world.env } },
      (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
    );
  });
}

describe('mailvet verify at a catch-all domain', () => {
  const domain = () => world.domains['catch-all'];

  it('--json: a name shaped like its peers is more likely real than a keyboard mash, each with its signals', async () => {
    const names = ['james.wilson', 'mary.jones', 'robert.brown', 'linda.davis'];
    const results = JSON.parse(
      await mailvet([...names.map((name) => `${name}@${domain()}`), `qwxzkjhv@${domain()}`, '--json']),
    ) as VerificationResult[];
    const name = results[0]!;
    const mash = results.at(-1)!;
    for (const result of [name, mash]) {
      assert.equal(result.status, 'PROBABLY_VALID');
      assert.equal(result.reason, 'catch_all');
      assert.equal(typeof result.checks.catch_all_confidence, 'number');
      assert.ok(result.score >= 40 && result.score <= 85, `${result.email}: score ${result.score}`);
      assert.ok(result.evidence.catch_all_signals.length > 0, `${result.email} has its signals`);
    }
    assert.ok(name.checks.catch_all_confidence! > mash.checks.catch_all_confidence!);
    assert.ok(name.score > mash.score);
    const signals = (result: VerificationResult) => result.evidence.catch_all_signals.map((s) => s.signal);
    assert.ok(signals(name).includes('pattern_match'), signals(name).join(', '));
    assert.ok(signals(mash).includes('gibberish'), signals(mash).join(', '));
  });

  it('a line names the confidence', async () => {
    const line = await mailvet([`mary.jones@${domain()}`]);
    assert.match(
      line,
      /PROBABLY_VALID\s+score \d+\s+catch_all\s+smtp catch_all\s+reply 250\b.*catch-all confidence \d+/,
    );
  });
});

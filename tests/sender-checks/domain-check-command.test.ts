/**
 * `mailvet domain-check` as a user runs it: a child process of bin/mailvet against the sender test
 * world (the test CA trusted through NODE_EXTRA_CA_CERTS), no database, exit code 0 for a domain
 * without failures and 1 with one, the human form with the grade and the fixes, 2 for a bad domain.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type SenderWorld, startSenderWorld } from './sender-world.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let world: SenderWorld;
before(async () => {
  world = await startSenderWorld();
});
after(() => world.close());

function mailvet(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...world.env, MAILVET_DATA_DIR: '/nonexistent/mailvet-domain-check' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('mailvet domain-check', () => {
  it('prints the report as JSON and exits 0 when no check fails', async () => {
    const run = await mailvet(['domain-check', 'cli.sender.test', '--json']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.domain, 'cli.sender.test');
    assert.equal(report.grade, 'A');
    assert.deepEqual(
      report.findings.map((item: { status: string; code: string }) => `${item.status}:${item.code}`),
      [
        'pass:spf_ok',
        'pass:dmarc_ok',
        'pass:dkim_ok',
        'pass:mx_ok',
        'info:mta_sts_missing',
        'pass:tls_rpt_ok',
        'pass:bimi_ok',
        'pass:blocklist_clean',
      ],
    );
  });

  it('exits 1 and prints each fix under its finding when a check fails', async () => {
    const run = await mailvet([
      'domain-check',
      'nodmarc.sender.test',
      '--dkim-selector',
      's1',
      '--dkim-selector',
      'nothere',
    ]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^nodmarc\.sender\.test: grade D \(60\/100\)$/m);
    assert.match(run.stdout, /^✖ dmarc {7}nodmarc\.sender\.test publishes no DMARC record/m);
    assert.match(run.stdout, /^ {4}fix: Publish a TXT record at _dmarc\.nodmarc\.sender\.test/m);
    assert.match(run.stdout, /^✖ dkim {8}No DKIM key at nothere\._domainkey\.nodmarc\.sender\.test/m);
    assert.match(run.stdout, /^i tls_rpt /m);
    assert.match(run.stdout, /2 failed/);
  });

  it('refuses a bad domain with exit code 2', async () => {
    const run = await mailvet(['domain-check', '10.0.0.1']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /An IP address is not a domain name/);
  });
});

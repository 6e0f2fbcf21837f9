/**
 * `mailvet doctor --json` as a user runs it: a child process of bin/mailvet against the test world,
 * exit code 0 on a fit host and 1 when a check fails; the human form marks each check.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { reportJson } from '../../src/doctor/finding.ts';
import { closedPort, type DoctorWorld, startDoctorWorld } from './doctor-world.ts';

type ReportJson = ReturnType<typeof reportJson>;

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let world: DoctorWorld;
before(async () => {
  world = await startDoctorWorld();
});
after(() => world.close());

function mailvet(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // No database is named or made: the doctor needs none.
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...world.env, MAILVET_DATA_DIR: '/nonexistent/mailvet-doctor', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('mailvet doctor', () => {
  it('prints the report as JSON and exits 0 when no check fails', async () => {
    const run = await mailvet(['doctor', '--json']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as ReportJson;
    assert.equal(report.counts.fail, 0);
    assert.equal(report.egress_ip, '127.0.0.1');
    assert.deepEqual(
      report.findings.map((item) => item.check),
      ['port_25', 'egress_address', 'helo', 'reverse_dns', 'dnsbl', 'spf', 'resolver'],
    );
  });

  it('exits 1 when port 25 is unreachable, and prints the fix under the failing check', async () => {
    const port = await closedPort();
    const json = await mailvet(['doctor', '--json'], { MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${port}` });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as ReportJson;
    assert.equal(report.findings.find((item) => item.check === 'port_25')?.status, 'fail');

    const human = await mailvet(['doctor'], { MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${port}` });
    assert.equal(human.code, 1);
    assert.match(human.stdout, /^✖ port_25 +No mail host could be reached on port 25/m);
    assert.match(human.stdout, /^ {4}fix: Outgoing port 25 looks blocked/m);
    assert.match(human.stdout, /^✔ resolver /m);
    assert.match(human.stdout, /1 failed/);
  });
});

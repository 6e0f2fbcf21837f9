/**
 * The domain check's MX dials ask the SMTP connection budget first (the one the verification probe
 * draws on), on behalf of the checking account: a dial the budget holds back is not made, and the
 * report says so (`mx_not_dialled`) and counts as incomplete, so it is neither cached nor graded as
 * if the host had been seen. Against the sender test world's DNS and mail hosts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createDomainCheckRun } from '../../src/container/sender-checks.ts';
import type { ConnectionGate } from '../../src/sender-checks/ports.ts';
import { type SenderWorld, startSenderWorld } from './sender-world.ts';

let world: SenderWorld;
before(async () => {
  world = await startSenderWorld();
});
after(() => world?.close());

/** A gate that answers `held` and remembers what it was asked. */
function recordingGate(
  held: string | null,
): ConnectionGate & { asked: Array<[string, string, string | undefined]> } {
  const asked: Array<[string, string, string | undefined]> = [];
  return {
    asked,
    take: async (ip, domain, accountId) => {
      asked.push([ip, domain, accountId]);
      return held;
    },
  };
}

function runWith(gate: ConnectionGate) {
  return createDomainCheckRun(
    loadConfig({ ...world.env, MAILVET_DATA_DIR: '/nonexistent' }),
    { extraCa: world.ca },
    gate,
  );
}

test('each MX dial asks the budget for its address, the checked domain and the account', async () => {
  const gate = recordingGate(null);
  const report = await runWith(gate)('good.sender.test', [], undefined, 'account-1');
  assert.deepEqual(gate.asked, [['127.0.0.60', 'good.sender.test', 'account-1']]);
  assert.ok(
    report.findings.some((finding) => finding.code === 'mx_ok'),
    JSON.stringify(report.findings),
  );
  assert.equal(report.complete, true);
});

test('a dial the budget holds back is not made: mx_not_dialled, the report incomplete', async () => {
  const gate = recordingGate('address_rate');
  const report = await runWith(gate)('good.sender.test', [], undefined, 'account-1');
  const mx = report.findings.filter((finding) => finding.check === 'mx');
  assert.deepEqual(
    mx.map((finding) => finding.code),
    ['mx_not_dialled'],
  );
  assert.match(mx[0]!.summary, /was not dialled this time.*address_rate/);
  assert.equal(report.complete, false);
});

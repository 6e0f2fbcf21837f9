/**
 * `mailvet serve` with the probe on runs the host check in the background once it listens, and
 * logs one line: info when nothing failed, warn naming the failing checks otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { LogCapture } from '../http/log-capture.ts';
import { closedPort, type DoctorWorld, startDoctorWorld } from './doctor-world.ts';

let world: DoctorWorld;
let dataDir: string;
before(async () => {
  world = await startDoctorWorld();
  dataDir = await mkdtemp(join(tmpdir(), 'mailvet-doctor-'));
});
after(async () => {
  await world.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts the server, waits for its doctor line, and returns every doctor line logged by then. */
async function doctorLines(
  name: string,
  env: Record<string, string>,
): Promise<Array<Record<string, unknown>>> {
  const capture = new LogCapture();
  const running = await startServer(
    loadConfig({
      ...world.env,
      PORT: '0',
      HOST: '127.0.0.1',
      MAILVET_DATA_DIR: join(dataDir, name),
      MAILVET_SMTP_PROBE: 'true',
      ...env,
    }),
    { handleSignals: false, worker: false, logger: { level: 'info', stream: capture } },
  );
  try {
    assert.equal((await fetch(`${running.url}/healthz`)).status, 200);
    const doctor = () => capture.entries().filter((entry) => String(entry.msg).startsWith('doctor:'));
    // The check runs after listening; wait for its line (the test runner's timeout bounds this).
    while (doctor().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    return doctor();
  } finally {
    await running.close();
  }
}

describe('the start-up doctor line', () => {
  it('logs one info line with the counts when every check passes', async () => {
    const lines = await doctorLines('fit', {});
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 30);
    assert.match(String(lines[0]!.msg), /^doctor: 7 passed, 0 warned, 0 failed, 0 skipped/);
    assert.deepEqual((lines[0]!.doctor as { failing: string[] }).failing, []);
  });

  it('logs one warn line naming the failing checks', async () => {
    const lines = await doctorLines('blocked', {
      MAILVET_DOCTOR_MX_HOSTS: `127.0.0.2:${await closedPort()}`,
    });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 40);
    assert.match(String(lines[0]!.msg), /failed: port_25/);
    assert.deepEqual((lines[0]!.doctor as { failing: string[] }).failing, ['port_25']);
  });
});

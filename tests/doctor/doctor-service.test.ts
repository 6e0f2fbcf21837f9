/** The shared report: made at most once a minute, re-made on request at most once every 10 s, one run at a time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DoctorService } from '../../src/doctor/doctor-service.ts';
import { type DoctorReport, reportOf } from '../../src/doctor/finding.ts';

function counting() {
  let runs = 0;
  let release: (() => void) | undefined;
  let hold = false;
  const run = async (): Promise<DoctorReport> => {
    runs++;
    if (hold)
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    return reportOf([], new Date(Date.UTC(2026, 0, 1, 0, 0, runs)), null);
  };
  return {
    run,
    get runs() {
      return runs;
    },
    holdNext() {
      hold = true;
    },
    releaseHeld() {
      hold = false;
      release?.();
    },
  };
}

describe('DoctorService', () => {
  it('gives the last report for a minute, then makes a new one', async () => {
    let now = 0;
    const checks = counting();
    const service = new DoctorService(checks.run, { clock: () => now });
    const first = await service.report();
    now = 59_999;
    assert.equal(await service.report(), first);
    assert.equal(checks.runs, 1);
    now = 60_000;
    assert.notEqual(await service.report(), first);
    assert.equal(checks.runs, 2);
  });

  it('re-runs on request, but not sooner than 10 s after the last run began', async () => {
    let now = 0;
    const checks = counting();
    const service = new DoctorService(checks.run, { clock: () => now });
    await service.report();
    now = 9_999;
    await service.report(true);
    assert.equal(checks.runs, 1);
    now = 10_000;
    await service.report(true);
    assert.equal(checks.runs, 2);
  });

  it('shares one run between concurrent callers', async () => {
    const checks = counting();
    const service = new DoctorService(checks.run, { clock: () => 0 });
    checks.holdNext();
    const both = Promise.all([service.report(), service.report(true)]);
    checks.releaseHeld();
    const [a, b] = await both;
    assert.equal(a, b);
    assert.equal(checks.runs, 1);
  });
});

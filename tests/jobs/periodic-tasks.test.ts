/**
 * The periodic task registry: tasks start together, run once at start when asked, never overlap
 * themselves, survive their own failures, and close() waits for a run in flight.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PeriodicTasks } from '../../src/jobs/periodic-tasks.ts';
import { gate, sleep, waitFor } from '../adapters/queue/queue-test-helpers.ts';

const quiet = () => {};

test('a task marked runAtStart runs at once, then every period; others wait for their period', async () => {
  const runs: string[] = [];
  const tasks = new PeriodicTasks(quiet)
    .register({ name: 'eager', everyMs: 40, runAtStart: true, run: async () => void runs.push('eager') })
    .register({ name: 'patient', everyMs: 60_000, run: async () => void runs.push('patient') });
  tasks.start();
  await sleep(0);
  assert.deepEqual(runs, ['eager']);
  await waitFor(() => runs.length >= 3, 'two more eager runs');
  assert.ok(!runs.includes('patient'), 'a task without runAtStart waits a whole period');
  await tasks.close();
});

test('a run still in flight is not started again; close() waits for it', async () => {
  const release = gate();
  let started = 0;
  let finished = 0;
  const tasks = new PeriodicTasks(quiet).register({
    name: 'slow',
    everyMs: 10,
    runAtStart: true,
    run: async () => {
      started++;
      await release.wait;
      finished++;
    },
  });
  tasks.start();
  await sleep(100);
  assert.equal(started, 1, 'ten periods passed, one run');
  let closed = false;
  const closing = tasks.close().then(() => {
    closed = true;
  });
  await sleep(30);
  assert.equal(closed, false, 'close() waits for the run in flight');
  release.open();
  await closing;
  assert.equal(finished, 1);
  await sleep(50);
  assert.equal(started, 1, 'nothing runs after close()');
});

test('a failing run is logged and the task runs again', async () => {
  const warnings: string[] = [];
  let runs = 0;
  const tasks = new PeriodicTasks((_, message) => warnings.push(message)).register({
    name: 'flaky sweep',
    everyMs: 10,
    runAtStart: true,
    run: async () => {
      runs++;
      if (runs === 1) throw new Error('database away');
    },
  });
  tasks.start();
  await waitFor(() => runs >= 2, 'the run after the failure');
  await tasks.close();
  assert.deepEqual(warnings, ['flaky sweep failed; it runs again soon']);
});

test('names are unique, periods positive, and nothing is added once started', () => {
  const run = async () => {};
  const tasks = new PeriodicTasks(quiet).register({ name: 'a', everyMs: 1_000, run });
  assert.throws(() => tasks.register({ name: 'a', everyMs: 1_000, run }), /registered twice/);
  assert.throws(() => tasks.register({ name: 'b', everyMs: 0, run }), RangeError);
  assert.deepEqual(tasks.names, ['a']);
  tasks.start();
  assert.throws(() => tasks.register({ name: 'c', everyMs: 1_000, run }), /after start/);
  assert.throws(() => tasks.start(), /already started/);
  return tasks.close();
});

/**
 * The JobQueue contract (src/jobs/ports.ts), run against the in-process and the BullMQ queue.
 * Every case gets a queue of its own (a fresh `scope`), so a BullMQ queue in a shared Redis never
 * sees another case's jobs. Waits are "until it happened" with a generous hang guard, or a short
 * settle to let a wrong extra run show itself; nothing asserts how fast anything is.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import type { JobHandler, JobQueue, QueueErrorHandler } from '../../../src/jobs/ports.ts';
import {
  CASE_TIMEOUT,
  enqueueUntilRun,
  errorLog,
  gate,
  job,
  recorder,
  SETTLE_MS,
  sleep,
  waitFor,
} from './queue-test-helpers.ts';

/** Options every implementation takes. */
export interface ContractQueueOptions {
  attempts?: number;
  backoffMs?: number;
  onError?: QueueErrorHandler;
}

/** How the suite gets the implementation under test; `skip` names why it cannot run here. */
export interface JobQueueSubject {
  name: string;
  /** A new queue instance; instances of one `scope` share their queue where they can (BullMQ). */
  create(scope: string, options: ContractQueueOptions): JobQueue;
  skip?: string | undefined;
}

/** Registers the contract suite for one implementation. */
export function jobQueueContract(subject: JobQueueSubject): void {
  if (subject.skip !== undefined) {
    // A skipped test, not a skipped suite: the runner's totals count tests only.
    it(`JobQueue contract: ${subject.name}`, { skip: subject.skip }, () => {});
    return;
  }
  describe(`JobQueue contract: ${subject.name}`, () => {
    let opened: JobQueue[] = [];
    const open = (options: ContractQueueOptions = {}): JobQueue => {
      const queue = subject.create(randomUUID(), options);
      opened.push(queue);
      return queue;
    };
    afterEach(async () => {
      await Promise.all(opened.map((queue) => queue.close()));
      opened = [];
    });

    it('runs an id once, enqueued before or after consume, in FIFO order', CASE_TIMEOUT, async () => {
      const runs = recorder();
      const queue = open();
      await queue.enqueue(job('lst_before'));
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_after'));
      await waitFor(() => runs.finished.length === 2, 'both runs');
      await sleep(SETTLE_MS);
      assert.deepEqual(runs.started, ['lst_before', 'lst_after']);
    });

    it('ignores a duplicate enqueue while the id is waiting', CASE_TIMEOUT, async () => {
      const blocker = gate();
      const runs = recorder((listId) => (listId === 'lst_blocker' ? blocker.wait : undefined));
      const queue = open();
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_blocker'));
      await waitFor(() => runs.count('lst_blocker') === 1, 'the blocker to start');
      await queue.enqueue(job('lst_a'));
      await Promise.all([queue.enqueue(job('lst_a')), queue.enqueue(job('lst_a'))]);
      blocker.open();
      await waitFor(() => runs.finished.includes('lst_a'), 'lst_a to run');
      await sleep(SETTLE_MS);
      assert.deepEqual(runs.started, ['lst_blocker', 'lst_a']);
    });

    it('ignores an enqueue while the id runs; a later enqueue runs it again', CASE_TIMEOUT, async () => {
      const first = gate();
      const runs = recorder((_, run) => (run === 1 ? first.wait : undefined));
      const queue = open();
      queue.consume({ list: runs.handler }, { concurrency: 2 });
      await queue.enqueue(job('lst_a'));
      await waitFor(() => runs.count('lst_a') === 1, 'the first run');
      await queue.enqueue(job('lst_a'));
      first.open();
      await waitFor(() => runs.finished.length === 1, 'the first run to end');
      await sleep(SETTLE_MS);
      assert.equal(runs.count('lst_a'), 1, 'the enqueue during the run was ignored');
      await enqueueUntilRun(queue, 'lst_a', () => runs.count('lst_a'), 2);
      await waitFor(() => runs.finished.length === 2, 'the second run to end');
      await sleep(SETTLE_MS);
      assert.equal(runs.count('lst_a'), 2);
    });

    it('retries a failing handler (sync throw, rejection) until it succeeds', CASE_TIMEOUT, async () => {
      const log = errorLog();
      const thrown = new Error('boom 1');
      let calls = 0;
      // Not async: the first failure is a synchronous throw.
      const handler: JobHandler = (listId) => {
        calls++;
        if (calls === 1) throw thrown;
        if (calls === 2) return Promise.reject('boom 2');
        assert.equal(listId, 'lst_a');
        return Promise.resolve();
      };
      const queue = open({
        attempts: 4,
        backoffMs: 20,
        // A logger that throws must not break the queue either.
        onError: (...args) => {
          log.onError(...args);
          throw new Error('broken logger');
        },
      });
      queue.consume({ list: handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_a'));
      await waitFor(() => calls === 3, 'the third attempt');
      await sleep(SETTLE_MS);
      assert.equal(calls, 3);
      assert.deepEqual(log.errors, [
        { listId: 'lst_a', error: thrown, willRetry: true },
        { listId: 'lst_a', error: 'boom 2', willRetry: true },
      ]);
    });

    it('gives up after `attempts` runs; a later enqueue runs the id again', CASE_TIMEOUT, async () => {
      const log = errorLog();
      let succeed = false;
      const runs = recorder(() => {
        if (!succeed) throw new Error('still failing');
      });
      const queue = open({ attempts: 3, backoffMs: 10, onError: log.onError });
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_a'));
      await waitFor(() => log.errors.length === 3, 'three failures');
      await sleep(SETTLE_MS);
      assert.equal(runs.count('lst_a'), 3);
      assert.deepEqual(
        log.errors.map((e) => [e.listId, e.willRetry]),
        [
          ['lst_a', true],
          ['lst_a', true],
          ['lst_a', false],
        ],
      );
      succeed = true;
      await enqueueUntilRun(queue, 'lst_a', () => runs.count('lst_a'), 4);
      await waitFor(() => runs.finished.length === 1, 'the successful run');
      await sleep(SETTLE_MS);
      assert.equal(runs.count('lst_a'), 4);
    });

    it('ignores an enqueue while the id backs off before a retry', CASE_TIMEOUT, async () => {
      const log = errorLog();
      const runs = recorder((_, run) => {
        if (run === 1) throw new Error('first attempt fails');
      });
      // A backoff long enough that the enqueues below surely land inside it.
      const queue = open({ attempts: 2, backoffMs: 2_000, onError: log.onError });
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_a'));
      await waitFor(() => log.errors.length === 1, 'the first failure');
      await sleep(200);
      await queue.enqueue(job('lst_a'));
      await queue.enqueue(job('lst_a'));
      await waitFor(() => runs.finished.length === 1, 'the retry to succeed');
      await sleep(SETTLE_MS);
      assert.equal(runs.count('lst_a'), 2);
    });

    it(
      'runs a deferred id again after its delay, its slot free meanwhile; no attempt used',
      CASE_TIMEOUT,
      async () => {
        const log = errorLog();
        const started: Array<{ listId: string; at: number }> = [];
        const handler: JobHandler = async (listId) => {
          started.push({ listId, at: Date.now() });
          const runs = started.filter((run) => run.listId === listId).length;
          // lst_wait asks to come back twice: more deferrals than its one attempt allows failures.
          if (listId === 'lst_wait' && runs <= 2) return { runAgainInMs: 700 };
        };
        const queue = open({ attempts: 1, onError: log.onError });
        queue.consume({ list: handler }, { concurrency: 1 });
        await queue.enqueue(job('lst_wait'));
        await waitFor(() => started.length === 1, 'the first run');
        // With one slot, these run only because the deferred id does not hold it.
        await queue.enqueue(job('lst_other'));
        await waitFor(() => started.some((run) => run.listId === 'lst_other'), 'lst_other to run');
        const waits = started.filter((run) => run.listId === 'lst_wait');
        assert.equal(waits.length, 1, 'lst_other ran while lst_wait waited');
        // One pending run per id: enqueues during the wait add nothing.
        await queue.enqueue(job('lst_wait'));
        await queue.enqueue(job('lst_wait'));
        await waitFor(() => started.filter((run) => run.listId === 'lst_wait').length === 3, 'both re-runs');
        await sleep(SETTLE_MS + 700);
        const again = started.filter((run) => run.listId === 'lst_wait');
        assert.equal(again.length, 3, 'the enqueues during the wait added no run');
        // The delay is a floor (timers may fire a few ms early: allow 50 ms).
        assert.ok(again[1]!.at - again[0]!.at >= 650, `re-run after ${again[1]!.at - again[0]!.at} ms`);
        assert.ok(again[2]!.at - again[1]!.at >= 650, `re-run after ${again[2]!.at - again[1]!.at} ms`);
        assert.deepEqual(log.errors, [], 'a deferral is not a failure');
      },
    );

    it('runs a deferred id again when enqueued after its deferred run ended', CASE_TIMEOUT, async () => {
      let runs = 0;
      const queue = open();
      queue.consume(
        {
          list: async () => {
            runs++;
            if (runs === 1) return { runAgainInMs: 50 };
          },
        },
        { concurrency: 1 },
      );
      await queue.enqueue(job('lst_a'));
      await waitFor(() => runs === 2, 'the deferred re-run');
      await sleep(SETTLE_MS);
      assert.equal(runs, 2);
      await enqueueUntilRun(queue, 'lst_a', () => runs, 3);
      await sleep(SETTLE_MS);
      assert.equal(runs, 3);
    });

    it('never runs more than `concurrency` handlers, and does run that many', CASE_TIMEOUT, async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `lst_${i}`);
      const full = gate();
      let inFlight = 0;
      let most = 0;
      const runs = recorder(async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        if (inFlight === 3) full.open();
        // The first three meet here: if fewer could run at once, this would hang.
        await full.wait;
        await sleep(5 + Math.random() * 15);
        inFlight--;
      });
      const queue = open();
      queue.consume({ list: runs.handler }, { concurrency: 3 });
      for (const id of ids) await queue.enqueue(job(id));
      await waitFor(() => runs.finished.length === ids.length, 'every id to run');
      assert.equal(most, 3);
      assert.deepEqual([...runs.started].sort(), [...ids].sort());
    });

    it('close() awaits running handlers; none starts once it is called', CASE_TIMEOUT, async () => {
      const release = gate();
      const events: string[] = [];
      const runs = recorder(async (listId) => {
        events.push(`start ${listId}`);
        if (listId === 'lst_a') await release.wait;
        events.push(`end ${listId}`);
      });
      const queue = open();
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_a'));
      await waitFor(() => runs.count('lst_a') === 1, 'lst_a to start');
      await queue.enqueue(job('lst_b'));
      const closing = queue.close().then(() => events.push('closed'));
      await sleep(SETTLE_MS);
      assert.deepEqual(events, ['start lst_a'], 'close() still waits for lst_a');
      release.open();
      await closing;
      await sleep(SETTLE_MS);
      assert.deepEqual(events, ['start lst_a', 'end lst_a', 'closed']);
    });

    it('runs each kind with its own handler; one pending run per kind and id', CASE_TIMEOUT, async () => {
      const blocker = gate();
      const lists = recorder((id) => (id === 'lst_blocker' ? blocker.wait : undefined));
      const reports = recorder();
      const queue = open();
      queue.consume({ list: lists.handler, report: reports.handler }, { concurrency: 1 });
      await queue.enqueue(job('lst_blocker'));
      await waitFor(() => lists.count('lst_blocker') === 1, 'the blocker to start');
      // The same id under two kinds is two jobs; a repeat of either is one.
      await queue.enqueue(job('same', 'report'));
      await queue.enqueue(job('same'));
      await queue.enqueue(job('same', 'report'));
      await queue.enqueue(job('same'));
      blocker.open();
      await waitFor(() => lists.finished.length === 2 && reports.finished.length === 1, 'both kinds');
      await sleep(SETTLE_MS);
      assert.deepEqual(lists.started, ['lst_blocker', 'same']);
      assert.deepEqual(reports.started, ['same']);
    });

    it('fails a job whose kind has no handler here, and runs the others', CASE_TIMEOUT, async () => {
      const log = errorLog();
      const runs = recorder();
      const queue = open({ attempts: 2, backoffMs: 10, onError: log.onError });
      queue.consume({ list: runs.handler }, { concurrency: 1 });
      await queue.enqueue(job('x', 'unknown'));
      await queue.enqueue(job('lst_b'));
      await waitFor(() => log.errors.length === 2 && runs.finished.length === 1, 'the failures and lst_b');
      await sleep(SETTLE_MS);
      assert.deepEqual(runs.started, ['lst_b']);
      assert.deepEqual(
        log.errors.map((e) => [e.kind, e.listId, e.willRetry, String(e.error)]),
        [
          ['unknown', 'x', true, 'Error: no handler for jobs of kind "unknown" in this process'],
          ['unknown', 'x', false, 'Error: no handler for jobs of kind "unknown" in this process'],
        ],
      );
    });

    it('after close(), enqueue rejects and consume throws; close() is idempotent', CASE_TIMEOUT, async () => {
      const queue = open();
      await queue.close();
      await queue.close();
      await assert.rejects(queue.enqueue(job('lst_a')), /closed/);
      assert.throws(() => queue.consume({ list: async () => {} }, { concurrency: 1 }), /closed/);
    });

    it('refuses ids no queue can carry, a bad concurrency and a second consume', CASE_TIMEOUT, async () => {
      const queue = open();
      for (const id of ['', '42', 'lst:a', 'lst.a']) {
        await assert.rejects(queue.enqueue(job(id)), TypeError, `id ${id}`);
      }
      for (const kind of ['', 'List', 'a.b', 'a:b', '9lives']) {
        await assert.rejects(queue.enqueue(job('lst_a', kind)), TypeError, `kind ${kind}`);
      }
      assert.throws(() => queue.consume({ list: async () => {} }, { concurrency: 0 }), RangeError);
      assert.throws(() => queue.consume({ list: async () => {} }, { concurrency: 1.5 }), RangeError);
      queue.consume({ list: async () => {} }, { concurrency: 1 });
      assert.throws(() => queue.consume({ list: async () => {} }, { concurrency: 1 }), /already/);
    });
  });
}

/**
 * A domain's queue cancels its workers once nobody waits for an answer, and not before, and
 * shares what waits among the workers free to ask.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainQueue } from '../../../src/adapters/smtp/domain-queue.ts';
import type { ProbeRequest } from '../../../src/verification/ports.ts';
import type { SmtpCheck } from '../../../src/verification/report.ts';

const request = (localPart: string): ProbeRequest => ({
  address: `${localPart}@d.test`,
  localPart,
  asciiDomain: 'd.test',
  mxHosts: [{ exchange: 'mx.d.test', priority: 10 }],
  internationalized: false,
});
const deliverable = { verdict: 'deliverable' } as SmtpCheck;

test('workers are cancelled when the last unanswered probe leaves, not before', () => {
  const queue = new DomainQueue(request('a').mxHosts);
  const answers: string[] = [];
  const a = queue.enqueue(request('a'), () => answers.push('a'));
  const b = queue.enqueue(request('b'), () => answers.push('b'));
  const worker = queue.startWorker();
  // b is in a session's transaction, a leaves: b still waits for its answer.
  queue.waiting.splice(queue.waiting.indexOf(b), 1);
  queue.leave(a);
  assert.equal(worker.signal.aborted, false);
  assert.deepEqual(queue.waiting, []);
  b.resolve(deliverable);
  b.resolve(deliverable);
  assert.deepEqual(answers, ['b'], 'answered once');
  const c = queue.enqueue(request('c'), () => answers.push('c'));
  queue.leave(c);
  assert.equal(worker.signal.aborted, true);
  c.resolve(deliverable);
  assert.deepEqual(answers, ['b'], 'a probe that left is not answered through the queue');
  assert.equal(queue.idle, false);
  worker.done();
  assert.equal(queue.idle, true);
});

test('a worker started after a cancellation has a live signal', () => {
  const queue = new DomainQueue(request('a').mxHosts);
  const first = queue.startWorker();
  queue.leave(queue.enqueue(request('a'), () => {}));
  assert.equal(first.signal.aborted, true);
  queue.enqueue(request('b'), () => {});
  assert.equal(queue.startWorker().signal.aborted, false);
});

test('workers free to ask share what waits evenly; one free while the others ask takes it all', () => {
  const queue = new DomainQueue(request('a').mxHosts);
  for (let i = 0; i < 100; i++) queue.enqueue(request(`u${i}`), () => {});
  queue.startWorker();
  queue.startWorker();
  assert.equal(queue.share, 50);
  queue.waiting.splice(0, queue.share);
  queue.asking += 1;
  assert.equal(queue.share, 50, 'the other worker takes the rest');
  queue.startWorker();
  assert.equal(queue.share, 25, 'two free workers split it');
});

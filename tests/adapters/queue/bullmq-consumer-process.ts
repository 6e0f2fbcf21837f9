/**
 * A worker process for the kill -9 case of job-queue-contract.test.ts: consumes the queue named by
 * its arguments with short locks, prints `started <listId>` for each job and never finishes one,
 * so the parent can kill it mid-run. Arguments: REDIS_URL, key prefix, queue name.
 */
import { BullmqQueue } from '../../../src/adapters/queue/bullmq/bullmq-queue.ts';

const [url = '', prefix = '', queueName = ''] = process.argv.slice(2);
const queue = new BullmqQueue({ url, prefix, queueName, lockDurationMs: 1_000, stalledIntervalMs: 500 });
queue.consume(
  {
    list: (listId) => {
      process.stdout.write(`started ${listId}\n`);
      return new Promise<void>(() => {});
    },
  },
  { concurrency: 1 },
);

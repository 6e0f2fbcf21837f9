/**
 * A separate process working on a store, for the contract's multi-process cases: started by
 * `runStoreProcesses`, it waits for a shared start instant so that its siblings race it, does one
 * job, and prints its outcome as one JSON line.
 */
import { setTimeout } from 'node:timers/promises';
import { migrateOnly, openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';

/** What one process does. */
export type StoreProcessJob =
  /** Migrates each database in turn, the i-th at `startAt + i * spacingMs`. */
  | { mode: 'migrate'; databases: StoreOptions[]; startAt: number; spacingMs: number }
  | {
      mode: 'charge';
      options: StoreOptions;
      startAt: number;
      keyId: string;
      accountId: string;
      month: string;
      charges: number;
      limit: number;
    };

/** Sleeps, then spins the last milliseconds: timers alone let siblings start a few ms apart. */
async function untilStart(startAt: number): Promise<void> {
  while (Date.now() < startAt - 20) await setTimeout(5);
  while (Date.now() < startAt) {
    // spin
  }
}

async function run(job: StoreProcessJob): Promise<unknown> {
  if (job.mode === 'migrate') {
    const applied: string[][] = [];
    for (const [i, options] of job.databases.entries()) {
      await untilStart(job.startAt + i * job.spacingMs);
      applied.push(await migrateOnly(options));
    }
    return { applied };
  }
  const store = await openStore(job.options);
  try {
    await untilStart(job.startAt);
    const { keyId, accountId, month, limit } = job;
    const charges = await Promise.all(
      Array.from({ length: job.charges }, () =>
        store.chargeVerifications({ accountId, keyId }, month, 1, { account: limit, key: null }),
      ),
    );
    return { granted: charges.reduce((sum, charge) => sum + charge.granted, 0) };
  } finally {
    await store.close();
  }
}

const job = JSON.parse(process.argv[2] ?? '{}') as StoreProcessJob;
process.stdout.write(`${JSON.stringify(await run(job))}\n`);

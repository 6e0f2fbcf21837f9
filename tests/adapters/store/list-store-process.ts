/**
 * A separate process charging a list's addresses, for the list store contract's cross-process
 * case: it opens its own store, waits for a shared start instant so that its siblings race it,
 * runs its batches of `chargeAddresses` all at once, and prints what each charged as one JSON line.
 */
import { setTimeout } from 'node:timers/promises';
import { openStore, type StoreOptions } from '../../../src/adapters/store/open-store.ts';
import type { AddressCharge } from '../../../src/lists/ports.ts';

/** What one process does. */
export interface ListChargeJob {
  options: StoreOptions;
  startAt: number;
  listId: string;
  charge: AddressCharge;
  /** Each batch is one `chargeAddresses` call; all of them run concurrently. */
  batches: string[][];
}

/** What one process prints: the keys each of its calls charged. */
export interface ListChargeOutcome {
  charged: string[][];
}

/** Sleeps, then spins the last milliseconds: timers alone let siblings start a few ms apart. */
async function untilStart(startAt: number): Promise<void> {
  while (Date.now() < startAt - 20) await setTimeout(5);
  while (Date.now() < startAt) {
    // spin
  }
}

async function run(job: ListChargeJob): Promise<ListChargeOutcome> {
  const store = await openStore(job.options);
  try {
    await untilStart(job.startAt);
    const results = await Promise.all(
      job.batches.map((batch) => store.lists.chargeAddresses(job.listId, batch, job.charge)),
    );
    return { charged: results.map((result) => result.charged) };
  } finally {
    await store.close();
  }
}

const job = JSON.parse(process.argv[2] ?? '{}') as ListChargeJob;
process.stdout.write(`${JSON.stringify(await run(job))}\n`);

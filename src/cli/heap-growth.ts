/**
 * How far V8 lets the old generation grow between full collections, for the long-running commands.
 *
 * V8 sizes the next full collection's threshold as the live heap times a factor it picks from its
 * own speed, up to 4. A list job makes many objects that outlive a scavenge (rows waiting for a
 * domain's SMTP replies, results waiting for their write) and die soon after, so with that factor
 * the heap of a 100,000-row job held 150 MB of garbage over a 35 MB live set, and the process
 * peaked near 300 MB. A fixed factor of 2 keeps that peak near 210 MB
 * (`BENCH_LISTS_NODE_FLAGS=--heap-growing-percent=N npm run bench -- lists` compares others) for a
 * full collection now and then. The flag is read at every collection, so setting it at start
 * works; NODE_OPTIONS does not accept it.
 */
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

/** Sets the factor; called first thing by `serve` and `worker`. */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

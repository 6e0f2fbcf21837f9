/**
 * An upload's store writes, run while the next batch is read: a store on another process
 * (PostgreSQL) inserts one batch while this one parses the next, instead of the two taking turns.
 * At most `depth` writes are in flight (memory stays bounded: a batch waits for a slot), and they
 * start in the order given. A write that failed fails a later `add` (at the latest the one that
 * waits for its slot) or the `drain`.
 */
export class WriteAhead {
  readonly #depth: number;
  readonly #inFlight: Array<Promise<void>> = [];

  constructor(depth: number) {
    this.#depth = Math.max(1, depth);
  }

  /** Starts `write` once fewer than `depth` writes are in flight; throws the error of a write it waited for. */
  async add(write: () => Promise<void>): Promise<void> {
    while (this.#inFlight.length >= this.#depth) await this.#inFlight.shift();
    const started = write();
    // Rejections are seen by the `add` or `drain` that awaits this write, not reported as unhandled
    // meanwhile.
    started.catch(() => {});
    this.#inFlight.push(started);
  }

  /** Waits for every write; throws the first error among them. */
  async drain(): Promise<void> {
    while (this.#inFlight.length > 0) await this.#inFlight.shift();
  }

  /** Waits for every write, whatever its outcome: before undoing the upload, nothing may still land. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.#inFlight.splice(0));
  }
}

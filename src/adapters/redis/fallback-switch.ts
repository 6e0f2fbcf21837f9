/**
 * Runs an operation on Redis and, when Redis fails, on an in-process stand-in instead (scale-out
 * faults): a caller never sees a Redis error, only, for a while, per-process answers.
 *
 * The switch warns once when it falls back and once when Redis answers again. While fallen back it
 * sends at most one trial call per `retryIntervalMs` to Redis and answers every other call from
 * memory at once, so a hung Redis costs one command timeout per interval, not one per request.
 */

/** Tuning of a {@link FallbackSwitch}. */
export interface FallbackOptions {
  /** While fallen back, try Redis again at most this often, in ms (default 1000). */
  retryIntervalMs?: number;
  /** Milliseconds, for the retry interval; monotonic by default. */
  now?: () => number;
}

/** Where to log a fall-back or a recovery; called once per change, never per request. */
export type Warn = (message: string) => void;

/** Chooses, call by call, between Redis and the in-process fallback. */
export class FallbackSwitch {
  readonly #component: string;
  readonly #fallbackDescription: string;
  readonly #warn: Warn;
  readonly #retryIntervalMs: number;
  readonly #now: () => number;
  #degraded = false;
  #nextTrialMs = 0;

  /** `component` and `fallbackDescription` only word the two log lines. */
  constructor(component: string, fallbackDescription: string, warn: Warn, options: FallbackOptions = {}) {
    this.#component = component;
    this.#fallbackDescription = fallbackDescription;
    this.#warn = warn;
    this.#retryIntervalMs = options.retryIntervalMs ?? 1_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** True while calls are answered from memory. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /** `onRedis()`, or `inMemory()` when Redis fails or is being given a rest; never rejects because of Redis. */
  async run<T>(onRedis: () => Promise<T>, inMemory: () => Promise<T>): Promise<T> {
    const trial = this.#degraded;
    if (trial) {
      const now = this.#now();
      if (now < this.#nextTrialMs) return inMemory();
      this.#nextTrialMs = now + this.#retryIntervalMs;
    }
    let value: T;
    try {
      value = await onRedis();
    } catch (error) {
      this.#fallBack(error);
      return inMemory();
    }
    // Only a call sent while fallen back proves recovery: a slow call sent before the failure may
    // still succeed afterwards, and must not flip the switch back and forth.
    if (trial && this.#degraded) this.#recover();
    return value;
  }

  #fallBack(error: unknown): void {
    if (this.#degraded) return;
    this.#degraded = true;
    this.#nextTrialMs = this.#now() + this.#retryIntervalMs;
    const reason = error instanceof Error ? error.message : String(error);
    this.#log(
      `${this.#component}: Redis unavailable (${reason}); using ${this.#fallbackDescription} until it is back`,
    );
  }

  #recover(): void {
    this.#degraded = false;
    this.#log(`${this.#component}: Redis recovered; using it again`);
  }

  #log(message: string): void {
    try {
      this.#warn(message);
    } catch {
      // A broken logger must not turn a handled Redis outage into a failed request.
    }
  }
}

/**
 * The DNS adapter's own port: answers shared between processes, the second level under
 * CachedDnsResolver's in-process cache (memory and Redis implementations in `answers/`).
 */
import type { DnsAnswer } from '../../verification/ports.ts';

/** The question an answer belongs to. */
export type DnsQuestion = 'mx' | 'a' | 'aaaa';

/** An answer worth sharing: failures (SERVFAIL, timeouts) are kept per process only. */
export type SharedDnsAnswer = Exclude<DnsAnswer<unknown>, { kind: 'error' }>;

/** Shared DNS answers. `get` gives the answer with `ttlSeconds` set to the time it has left. */
export interface DnsAnswerStore {
  get(question: DnsQuestion, name: string): Promise<SharedDnsAnswer | undefined>;
  /** Keeps `answer` for `ttlSeconds` (0 or less keeps nothing). */
  set(question: DnsQuestion, name: string, answer: SharedDnsAnswer, ttlSeconds: number): Promise<void>;
}

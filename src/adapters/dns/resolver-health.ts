/**
 * Is our resolver telling the truth? Control queries (the MX of names that must exist) separate
 * our resolver's failure from a domain's: when the resolver cannot find even `gmail.com`, its
 * NXDOMAIN for a customer's domain means nothing, and its SERVFAILs are ours, not the domain's.
 * The verdict is cached for a short time, one check runs at a time, and the log hears of a change
 * once (broken, then healthy again), never per lookup.
 */
import type { Clock, DnsResolver } from '../../verification/ports.ts';

/** What /readyz reports for the resolver. */
export type ResolverReadiness = 'ok' | 'degraded';

/** The health check's settings. Defaults in brackets. */
export interface ResolverHealthOptions {
  /** Names whose MX must exist (MAILVET_DNS_CONTROL_NAMES); none turns the check off. */
  controlNames: readonly string[];
  /** How long a verdict is trusted, ms [30,000] (MAILVET_DNS_CONTROL_TTL). */
  verdictTtlMs?: number;
  /**
   * Failed lookups in a row since a healthy verdict (nothing answered between them) after which it
   * is checked again before its time [2]: a resolver that breaks is found within a lookup or two,
   * not after the verdict's whole lifetime.
   */
  suspectAfterFailures?: number;
  /** A verdict is never re-made sooner than this after the last one, ms [2,000]. */
  minRecheckMs?: number;
  /** /readyz waits at most this for a check, ms [1,000]; then it reports the last verdict. */
  readinessWaitMs?: number;
  /** Where the changes of verdict are written (the process log's warn). */
  warn: (message: string) => void;
}

interface Verdict {
  healthy: boolean;
  at: number;
}

/** The resolver's health, from control queries asked of the resolver itself (not of any cache). */
export class ResolverHealth {
  readonly #resolver: DnsResolver;
  readonly #clock: Clock;
  readonly #controlNames: readonly string[];
  readonly #verdictTtlMs: number;
  readonly #suspectAfter: number;
  readonly #minRecheckMs: number;
  readonly #readinessWaitMs: number;
  readonly #warn: (message: string) => void;
  #verdict: Verdict | undefined;
  #checking: { started: number; verdict: Promise<boolean> } | undefined;
  /** Failed lookups in a row since the verdict was made (an answer resets it). */
  #failuresSinceVerdict = 0;
  #lastAnswerAt = Number.NEGATIVE_INFINITY;

  constructor(resolver: DnsResolver, clock: Clock, options: ResolverHealthOptions) {
    this.#resolver = resolver;
    this.#clock = clock;
    this.#controlNames = options.controlNames.map((name) => name.trim().toLowerCase()).filter(Boolean);
    this.#verdictTtlMs = options.verdictTtlMs ?? 30_000;
    this.#suspectAfter = Math.max(1, options.suspectAfterFailures ?? 2);
    this.#minRecheckMs = options.minRecheckMs ?? 2_000;
    this.#readinessWaitMs = options.readinessWaitMs ?? 1_000;
    this.#warn = options.warn;
  }

  /** False when the check is off (no control names): every answer is then taken as given. */
  get enabled(): boolean {
    return this.#controlNames.length > 0;
  }

  /** Records what a lookup got: an answer (even NODATA) proves the resolver works; a failure may not. */
  observe(outcome: 'answer' | 'failure'): void {
    const now = this.#clock.now();
    if (outcome === 'answer') {
      this.#failuresSinceVerdict = 0;
      this.#lastAnswerAt = now;
    } else {
      this.#failuresSinceVerdict++;
    }
  }

  /** Whether our resolver answers its control queries: the cached verdict, or a fresh check. */
  async healthy(): Promise<boolean> {
    if (!this.enabled) return true;
    const verdict = this.#verdict;
    if (verdict !== undefined && !this.#stale(verdict, this.#clock.now())) return verdict.healthy;
    return this.#check();
  }

  /** The resolver's line in /readyz: `degraded` while it fails its control queries. */
  async readiness(): Promise<ResolverReadiness> {
    if (!this.enabled) return 'ok';
    // A resolver that times out must not make /readyz itself time out: past the wait, the last
    // verdict stands (the check goes on and settles the next answer).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.#readinessWaitMs, undefined);
    });
    const healthy = await Promise.race([this.healthy(), late]).finally(() => clearTimeout(timer));
    return (healthy ?? this.#verdict?.healthy ?? true) ? 'ok' : 'degraded';
  }

  /**
   * Whether the resolver answered its control queries after `since` (when a lookup was sent): the
   * test an NXDOMAIN must pass before it stands. A cached verdict from before the lookup cannot
   * vouch for it (the resolver may have broken since, and a wrong NXDOMAIN makes a good address
   * INVALID_DOMAIN); a check started after it can, and concurrent lookups share one.
   */
  async healthySince(since: number): Promise<boolean> {
    if (!this.enabled) return true;
    const verdict = this.#verdict;
    if (verdict !== undefined && verdict.at >= since && !this.#stale(verdict, this.#clock.now())) {
      return verdict.healthy;
    }
    const running = this.#checking;
    if (running === undefined) return this.#check();
    if (running.started >= since) return running.verdict;
    await running.verdict;
    return this.healthySince(since);
  }

  /** The health check's clock: when a lookup is sent, for `healthySince`. */
  now(): number {
    return this.#clock.now();
  }

  /** Expired, or contradicted by what lookups have seen since it was made. */
  #stale(verdict: Verdict, now: number): boolean {
    const age = now - verdict.at;
    if (age >= this.#verdictTtlMs) return true;
    if (age < this.#minRecheckMs) return false;
    if (verdict.healthy) return this.#failuresSinceVerdict >= this.#suspectAfter;
    // Broken, yet something was answered since: it may have healed.
    return this.#lastAnswerAt > verdict.at;
  }

  /** Runs the control queries, one check at a time; concurrent callers share it. */
  #check(): Promise<boolean> {
    if (this.#checking === undefined) {
      const started = this.#clock.now();
      const verdict = this.#askControls(started).finally(() => {
        this.#checking = undefined;
      });
      this.#checking = { started, verdict };
    }
    return this.#checking.verdict;
  }

  async #askControls(started: number): Promise<boolean> {
    // In turn, stopping at the first that answers: one control answering is enough (a single
    // provider's trouble is not our resolver's), and a healthy check costs one query.
    const answers: { name: string; answer: Awaited<ReturnType<DnsResolver['resolveMx']>> }[] = [];
    let healthy = false;
    for (const name of this.#controlNames) {
      const answer = await this.#resolver.resolveMx(name);
      answers.push({ name, answer });
      healthy = answer.kind === 'ok' && answer.records.length > 0;
      if (healthy) break;
    }
    const previous = this.#verdict;
    // Dated from when the questions were asked: it vouches for what was sent before then.
    this.#verdict = { healthy, at: started };
    this.#failuresSinceVerdict = 0;
    if (!healthy && previous?.healthy !== false) {
      const seen = answers.map(({ name, answer }) => `${name}: ${describe(answer)}`).join(', ');
      this.#warn(
        `DNS resolver fails its control queries (${seen}): lookups that fail are reported as dns_error, ` +
          'never as a missing domain, and not charged, until it answers them again',
      );
    } else if (healthy && previous?.healthy === false) {
      this.#warn('DNS resolver answers its control queries again: lookups are trusted again');
    }
    return healthy;
  }
}

function describe(answer: Awaited<ReturnType<DnsResolver['resolveMx']>>): string {
  switch (answer.kind) {
    case 'ok':
      return answer.records.length > 0 ? 'ok' : 'no MX';
    case 'error':
      return answer.failure;
    default:
      return answer.kind;
  }
}

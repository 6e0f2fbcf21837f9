/**
 * Any Redis-backed port with its in-process stand-in behind one FallbackSwitch: every method runs
 * on `shared` (Redis) and, while Redis fails, on `local` (memory) instead. One wrapper serves every
 * shared piece (rate limits, result cache, DNS answers, catch-all verdicts, host session slots),
 * so they all fall back, warn and recover alike.
 */
import { type FallbackOptions, FallbackSwitch, type Warn } from './fallback-switch.ts';

/** The methods of `T` that answer with a promise: the ones a fallback can stand in for. */
type AsyncMethods<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T];

export interface WithFallbackOptions<T> extends FallbackOptions {
  /** Names the piece in the two log lines: "rate limiter". */
  component: string;
  /** What stands in, for the log: "per-process limits". */
  fallback: string;
  warn: Warn;
  /** The methods to route (every method of the port). */
  methods: readonly AsyncMethods<T>[];
  /**
   * Rejections that are the port's answer, not Redis failing (a busy host): passed on as they
   * are, never turned into a fall-back.
   */
  isAnswer?: (error: unknown) => boolean;
}

/** A port that also says whether it is answering from memory. */
export type Degradable<T> = T & { readonly degraded: boolean };

/** `shared` where Redis answers, `local` while it does not; never rejects because of Redis. */
export function withFallback<T extends object>(
  shared: T,
  local: T,
  options: WithFallbackOptions<T>,
): Degradable<T> {
  const switcher = new FallbackSwitch(options.component, options.fallback, options.warn, options);
  const isAnswer = options.isAnswer ?? (() => false);
  // An answer given as a rejection travels as a value through the switch, which treats any
  // rejection as Redis failing, and is thrown again on the other side.
  const settle = (call: Promise<unknown>): Promise<{ value: unknown } | { error: unknown }> =>
    call.then(
      (value) => ({ value }),
      (error: unknown) => (isAnswer(error) ? { error } : Promise.reject(error)),
    );
  const routed: Record<PropertyKey, unknown> = {};
  for (const method of options.methods) {
    type Call = (...args: unknown[]) => Promise<unknown>;
    const onShared = (shared[method] as Call).bind(shared);
    const onLocal = (local[method] as Call).bind(local);
    routed[method] = async (...args: unknown[]) => {
      const outcome = await switcher.run(
        () => settle(onShared(...args)),
        () => settle(onLocal(...args)),
      );
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    };
  }
  Object.defineProperty(routed, 'degraded', { get: () => switcher.degraded, enumerable: true });
  return routed as Degradable<T>;
}

/**
 * The Clock port over `performance.now()`: monotonic, so an NTP step or a wall-clock change
 * never makes a cached DNS answer live longer or a duration negative (Date.now can jump back).
 */
import type { Clock } from '../../verification/ports.ts';

/** Milliseconds since process start, monotonic, sub-millisecond resolution. */
export class SystemClock implements Clock {
  /** Current monotonic time in milliseconds. */
  now(): number {
    return performance.now();
  }
}

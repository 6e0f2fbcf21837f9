/**
 * The catch-all model's numbers, as one table: the base log-odds, each signal's weight, and the
 * constants of the graded signals. docs/catch-all.md repeats this table and says why each is what
 * it is; the tests read it from here, so the two cannot drift apart unnoticed.
 */
import type { SignalName } from './types.ts';

/**
 * Log-odds before any signal: logistic(0.4) ≈ 60. An address at a catch-all domain, with nothing
 * else known, is more often real than not (lists hold addresses people gave), but far from sure.
 */
export const BASE_LOG_ODDS = 0.4;

/**
 * Weight of each signal in log-odds. For the two graded signals the number is the most they can
 * move: `gibberish` applies `weight × measure` (measure 0–1), `feedback_bounce_rate` is clamped to
 * ± this number (see FEEDBACK).
 */
export const SIGNAL_WEIGHTS: Readonly<Record<SignalName, number>> = {
  pattern_match: 1.5,
  pattern_compatible: 0.5,
  pattern_mismatch: -1.6,
  near_peer: -1.2,
  name_like: 0.9,
  name_partial: 0.3,
  gibberish: -3,
  numeric_heavy: -1.4,
  role_local_part: 0.6,
  provider_mailbox_host: 0.3,
  provider_security_gateway: -0.6,
  spf_sane: 0.1,
  spf_weak: -0.2,
  spf_absent: -0.4,
  dmarc_enforced: 0.3,
  dmarc_monitoring: 0.1,
  dmarc_absent: -0.2,
  feedback_bounce_rate: 1.5,
};

/** When the peers' patterns make a dominant one: enough peers, and most of them fit it. */
export const DOMINANCE = {
  /** Peers needed (confirmed ones count twice). */
  minPeerWeight: 3,
  /** Weighted share of peers whose shape admits the pattern. */
  minShare: 0.6,
  /** Weight a confirmed peer counts for, against 1 for a merely seen one. */
  confirmedPeerWeight: 2,
} as const;

/**
 * Feedback: the domain's hard-bounce rate among its catch-all addresses, smoothed with a Beta prior
 * of `priorStrength` pseudo-sends at `priorRate` (3 bounces of 4 sends reads 0.29, 3 of 300 reads
 * 0.013), then `−slope × (logit(rate) − logit(priorRate))`, clamped to ± the signal's weight. The
 * slope is below 1 because a domain's bounce rate tells its share of made-up addresses only in part
 * (behind a mailbox host most made-up addresses land in the catch-all mailbox and never bounce).
 */
export const FEEDBACK = {
  priorRate: 0.1,
  priorStrength: 10,
  slope: 0.5,
} as const;

/** Below this measure the gibberish signal is not reported (names score 0–0.1). */
export const GIBBERISH_FLOOR = 0.1;

/**
 * Catch-all detection: the probe asks RCPT for a local part nobody has, once per
 * domain. A server that accepts it accepts anything, so its 250 for the real address proves
 * nothing and the address is reported `catch_all`.
 */
import type { CatchAllProbeOutcome, SmtpUnknownReason, SmtpVerdict } from '../../report.ts';
import type { RcptVerdict } from './reply.ts';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const LETTERS_AND_DIGITS = `${LETTERS}0123456789`;
/** 26 × 36^21 ≈ 1.2e34 local parts: no real mailbox is ever hit by chance. */
const PROBE_LENGTH = 22;

/**
 * A random local part for the catch-all probe: 22 lower-case letters and digits, starting with a
 * letter. Plain on purpose — no "test", "verify" or tool name that filters could key on, no dots
 * or plus signs that some servers treat specially. `random` returns numbers in [0, 1), like
 * Math.random; out-of-range values are clamped rather than trusted.
 */
export function catchAllProbeLocalPart(random: () => number): string {
  let localPart = pick(LETTERS, random());
  for (let i = 1; i < PROBE_LENGTH; i++) localPart += pick(LETTERS_AND_DIGITS, random());
  return localPart;
}

function pick(alphabet: string, value: number): string {
  const index = Number.isFinite(value) ? Math.floor(value * alphabet.length) : 0;
  return alphabet[Math.min(Math.max(index, 0), alphabet.length - 1)] ?? 'a';
}

/** The SMTP verdict of an address once its domain's catch-all probe is known. */
export interface CatchAllOutcome {
  verdict: SmtpVerdict;
  /** true: the random local part was accepted; false: it was refused as missing; null: not known. */
  catchAll: boolean | null;
  /** Set exactly when verdict is `unknown`. */
  unknownReason: SmtpUnknownReason | null;
}

/**
 * Combines the address's RCPT verdict with the domain's random-local-part probe (null when that
 * probe was not made). Only an acceptance of the random address makes the domain catch-all, and
 * only a refusal that says "no such mailbox" (or "disabled") proves it is not; a full, throttled
 * or unknown answer to the probe leaves catchAll unknown.
 */
export function combineWithCatchAll(address: RcptVerdict, randomProbe: RcptVerdict | null): CatchAllOutcome {
  const catchAll = catchAllFrom(randomProbe);
  switch (address.kind) {
    case 'deliverable':
      return { verdict: catchAll === true ? 'catch_all' : 'deliverable', catchAll, unknownReason: null };
    case 'undeliverable':
    case 'mailbox_full':
    case 'mailbox_disabled':
      // The server told this address apart from others: its answer stands whatever the probe said.
      return { verdict: address.kind, catchAll, unknownReason: null };
    case 'too_many_recipients':
      // The session should have asked again in a new transaction; if it could not, ask later.
      return { verdict: 'unknown', catchAll, unknownReason: 'greylisted' };
    case 'unknown':
      return { verdict: 'unknown', catchAll, unknownReason: address.reason };
  }
}

/** What the random address's RCPT verdict says about the domain (the evidence's wording). */
export function catchAllProbeOutcome(randomProbe: RcptVerdict): CatchAllProbeOutcome {
  const catchAll = catchAllFrom(randomProbe);
  if (catchAll === null) return 'inconclusive';
  return catchAll ? 'accepted' : 'rejected';
}

function catchAllFrom(randomProbe: RcptVerdict | null): boolean | null {
  if (randomProbe === null) return null;
  if (randomProbe.kind === 'deliverable') return true;
  if (randomProbe.kind === 'undeliverable' || randomProbe.kind === 'mailbox_disabled') return false;
  return null;
}

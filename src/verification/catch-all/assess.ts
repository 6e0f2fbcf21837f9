/**
 * The catch-all confidence model: each signal the input supports adds its weight (log-odds) to a
 * base, and the sum goes through the logistic function into 0–100. Pure and deterministic; the
 * numbers live in weights.ts, their reasons in docs/catch-all.md.
 */
import { isRoleLocalPart } from '../checks/role.ts';
import { osaDistance } from '../checks/suggest-distance.ts';
import { gibberishOf } from './gibberish.ts';
import { digitShare, foldForModel } from './local-part.ts';
import { dominantPattern, shapeOf } from './patterns.ts';
import type {
  CatchAllAssessment,
  CatchAllInput,
  CatchAllSignal,
  DomainFeedback,
  MailPosture,
  MxProvider,
  SignalName,
} from './types.ts';
import { BASE_LOG_ODDS, FEEDBACK, GIBBERISH_FLOOR, SIGNAL_WEIGHTS } from './weights.ts';

/** Peers read at most: enough to see a pattern, few enough to keep one assessment cheap. */
export const MAX_PEERS = 1000;
/** Local parts shorter than this are not compared with peers for typos (`jdoe` and `adoe` are two people). */
const NEAR_PEER_MIN_LENGTH = 6;

/** The confidence (0–100) that an address at a catch-all domain is a real mailbox, and why. */
export function assessCatchAll(input: CatchAllInput): CatchAllAssessment {
  const folded = foldForModel(typeof input.localPart === 'string' ? input.localPart : '');
  const signals: CatchAllSignal[] = [
    ...shapeSignals(folded, input),
    ...contentSignals(folded, input),
    ...providerSignals(input.provider ?? null),
    ...postureSignals(input.posture ?? null),
    ...feedbackSignals(input.feedback ?? null),
  ].filter((signal) => signal.weight !== 0);
  const logOdds = signals.reduce((sum, signal) => sum + signal.weight, BASE_LOG_ODDS);
  return { confidence: toConfidence(logOdds), signals };
}

/** 100 × logistic(logOdds), rounded, always an integer in 0–100. */
export function toConfidence(logOdds: number): number {
  if (Number.isNaN(logOdds)) return Math.round(100 / (1 + Math.exp(-BASE_LOG_ODDS)));
  return Math.round(100 / (1 + Math.exp(-logOdds)));
}

function signal(name: SignalName, detail: string, scale = 1): CatchAllSignal {
  return { signal: name, weight: round2(SIGNAL_WEIGHTS[name] * scale), detail };
}

const round2 = (value: number) => Math.round(value * 100) / 100 || 0;

/** Pattern against the peers' dominant one, typos of a peer, and name-likeness. */
function shapeSignals(folded: string, input: CatchAllInput): CatchAllSignal[] {
  const signals: CatchAllSignal[] = [];
  const shape = shapeOf(folded);
  const peers = readPeers(input.peers, folded);
  const dominant = dominantPattern(peers);
  // A role mailbox (info@, sales@) follows no person's pattern: off-pattern says nothing about it.
  if (dominant !== null && !isRole(folded, input.domain)) {
    const seen = `dominant pattern ${dominant.pattern} in ${Math.round(dominant.share * 100)}% of ${dominant.peers} peers`;
    if (!shape.patterns.has(dominant.pattern)) {
      const own = shape.patterns.size === 0 ? 'no name pattern' : [...shape.patterns].sort().join(' or ');
      signals.push(signal('pattern_mismatch', `${seen}; this local part reads as ${own}`));
    } else if (shape.evidence === 'names') {
      signals.push(signal('pattern_match', `${seen}; this local part follows it with listed names`));
    } else {
      signals.push(signal('pattern_compatible', `${seen}; this local part has its shape`));
    }
  }
  const near = nearPeer(folded, peers);
  if (near !== null) signals.push(signal('near_peer', `one letter from the peer ${near}: a likely typo`));
  if (shape.evidence === 'names')
    signals.push(signal('name_like', 'made of listed given names and surnames'));
  else if (shape.evidence === 'partial') signals.push(signal('name_partial', 'part of it is a listed name'));
  return signals;
}

function readPeers(peers: CatchAllInput['peers'], folded: string): { folded: string; confirmed: boolean }[] {
  if (!Array.isArray(peers)) return [];
  const read: { folded: string; confirmed: boolean }[] = [];
  for (const peer of peers.slice(0, MAX_PEERS)) {
    if (typeof peer?.localPart !== 'string') continue;
    const peerFolded = foldForModel(peer.localPart);
    if (peerFolded === '' || peerFolded === folded) continue;
    read.push({ folded: peerFolded, confirmed: peer.confirmed === true });
  }
  return read;
}

/**
 * A peer one edit away (after the first letter, so `jsmith` and `asmith` stay two people) from a
 * local part of some length: the classic mistyped address beside the real one in the same list.
 */
function nearPeer(folded: string, peers: readonly { folded: string }[]): string | null {
  if (folded.length < NEAR_PEER_MIN_LENGTH) return null;
  for (const peer of peers) {
    if (peer.folded[0] !== folded[0] || Math.abs(peer.folded.length - folded.length) > 1) continue;
    // jane.doe2 beside jane.doe is how a second Jane Doe is told apart, not a typo.
    if (withoutTrailingDigits(peer.folded) === withoutTrailingDigits(folded)) continue;
    if (osaDistance(folded, peer.folded, 1) === 1) return peer.folded;
  }
  return null;
}

/** A role name, or the domain's own name (`acme@acme.com`). */
function isRole(folded: string, domain: unknown): boolean {
  if (folded === '') return false;
  return (
    isRoleLocalPart(folded) || (typeof domain === 'string' && folded === domain.toLowerCase().split('.')[0])
  );
}

const withoutTrailingDigits = (text: string) => text.replace(/\d+$/, '');

/** Gibberish, digits and role names. */
function contentSignals(folded: string, input: CatchAllInput): CatchAllSignal[] {
  const signals: CatchAllSignal[] = [];
  const gibberish = gibberishOf(folded);
  if (gibberish.measure >= GIBBERISH_FLOOR) {
    const parts = `letter pairs ${gibberish.letterPairs.toFixed(2)}, consonant run ${gibberish.consonantRun.toFixed(2)}, keyboard rows ${gibberish.keyboardRows.toFixed(2)}`;
    signals.push(
      signal('gibberish', `gibberish measure ${gibberish.measure.toFixed(2)} (${parts})`, gibberish.measure),
    );
  }
  const { digits, share } = digitShare(folded);
  if (digits >= 4 || (digits >= 2 && share >= 0.5)) {
    signals.push(signal('numeric_heavy', `${digits} digits, ${Math.round(share * 100)}% of its characters`));
  }
  if (isRole(folded, input.domain)) {
    signals.push(signal('role_local_part', 'a functional mailbox most organisations keep'));
  }
  return signals;
}

function providerSignals(provider: MxProvider | null): CatchAllSignal[] {
  if (provider === null || typeof provider !== 'object') return [];
  if (provider.kind === 'mailbox_host') {
    return [
      signal(
        'provider_mailbox_host',
        `MX at ${provider.id}, a mailbox host: the catch-all was set up on purpose`,
      ),
    ];
  }
  if (provider.kind === 'security_gateway') {
    return [
      signal(
        'provider_security_gateway',
        `MX at ${provider.id}, a security gateway that may accept any recipient`,
      ),
    ];
  }
  return [];
}

function postureSignals(posture: MailPosture | null): CatchAllSignal[] {
  if (posture === null || typeof posture !== 'object') return [];
  const signals: CatchAllSignal[] = [];
  if (posture.spf === 'sane') signals.push(signal('spf_sane', 'SPF present, ending in ~all or -all'));
  else if (posture.spf === 'invalid' || posture.spf === 'permissive') {
    signals.push(signal('spf_weak', `SPF ${posture.spf}`));
  } else if (posture.spf === 'absent') signals.push(signal('spf_absent', 'no SPF record'));
  if (posture.dmarc === 'quarantine' || posture.dmarc === 'reject') {
    signals.push(signal('dmarc_enforced', `DMARC p=${posture.dmarc}`));
  } else if (posture.dmarc === 'none') signals.push(signal('dmarc_monitoring', 'DMARC p=none'));
  else if (posture.dmarc === 'absent') signals.push(signal('dmarc_absent', 'no DMARC record'));
  return signals;
}

/** The domain's smoothed hard-bounce rate against the prior's, in log-odds; null without feedback. */
export function feedbackLogOdds(feedback: DomainFeedback): { rate: number; weight: number } | null {
  const bounces = finiteCount(feedback.hardBounces);
  const delivered = finiteCount(feedback.delivered);
  if (bounces + delivered === 0) return null;
  const { priorRate, priorStrength, slope } = FEEDBACK;
  const rate = (bounces + priorRate * priorStrength) / (bounces + delivered + priorStrength);
  const logit = (p: number) => Math.log(p / (1 - p));
  const limit = SIGNAL_WEIGHTS.feedback_bounce_rate;
  const weight = Math.max(-limit, Math.min(limit, -slope * (logit(rate) - logit(priorRate))));
  return { rate, weight };
}

function feedbackSignals(feedback: DomainFeedback | null): CatchAllSignal[] {
  if (feedback === null || typeof feedback !== 'object') return [];
  const moved = feedbackLogOdds(feedback);
  if (moved === null) return [];
  const bounces = finiteCount(feedback.hardBounces);
  const sends = bounces + finiteCount(feedback.delivered);
  return [
    {
      signal: 'feedback_bounce_rate',
      weight: round2(moved.weight),
      detail: `${bounces} hard bounces of ${sends} recorded sends at this domain, smoothed rate ${(moved.rate * 100).toFixed(1)}%`,
    },
  ];
}

const finiteCount = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

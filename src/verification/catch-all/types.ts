/**
 * What the catch-all confidence model reads and what it answers. Every input field but the local
 * part may be absent: the model then leaves out the signals that field feeds.
 */

import type { MailboxProviderKind } from '../report.ts';

/** How the MX host that answered is run, as recognised from its name (the provider table's kinds). */
export type MxProviderKind = MailboxProviderKind;

/** The mailbox provider recognised behind the domain's MX. */
export interface MxProvider {
  /** The provider's id in the provider data file (`google`, `microsoft`, `proofpoint`...); shown in details. */
  id: string;
  /**
   * `mailbox_host`: the provider stores the mail (Google Workspace, Microsoft 365...), so its
   * catch-all was set up on purpose; `security_gateway`: a filter in front of the real server
   * (Proofpoint, Mimecast...) that often accepts every recipient and bounces later; null: not known.
   */
  kind: MxProviderKind | null;
}

/**
 * The domain's mail posture from DNS, looked up by the pipeline.
 * `spf`: `absent` (no `v=spf1` TXT record), `invalid` (several records, or one that does not
 * parse), `permissive` (ends in `+all` or `?all`, or has no `all` and no redirect), `sane` (ends in
 * `~all` or `-all`, or redirects). `dmarc`: the `p=` of `_dmarc.<domain>`, or `absent` when there
 * is no valid record.
 */
export interface MailPosture {
  spf: 'absent' | 'invalid' | 'permissive' | 'sane';
  dmarc: 'absent' | 'none' | 'quarantine' | 'reject';
}

/** Another address at the same domain, seen in the same list or account. */
export interface Peer {
  /** Its local part as submitted (case and `+tag` are folded by the model). */
  localPart: string;
  /**
   * true when that address is known to be real: accepted by a server that is not catch-all, or
   * recorded `delivered` in the account's feedback; false when it was merely seen.
   */
  confirmed: boolean;
}

/** The account's recorded outcomes for catch-all addresses at the domain (feedback store). */
export interface DomainFeedback {
  /** Hard bounces recorded for the domain's catch-all addresses (the address assessed excluded). */
  hardBounces: number;
  /** Deliveries recorded for the domain's catch-all addresses (the address assessed excluded). */
  delivered: number;
}

/** Everything the pipeline can know about an address at a catch-all domain. */
export interface CatchAllInput {
  /** The local part, as normalised by the pipeline (before any folding; quotes allowed). */
  localPart: string;
  /** The domain (ASCII, lower case); an address named after it (`acme@acme.com`) is a role. */
  domain: string;
  /** The provider behind the MX; null or absent when none was recognised. */
  provider?: MxProvider | null;
  /** SPF and DMARC of the domain; null or absent when not looked up. */
  posture?: MailPosture | null;
  /**
   * Local parts of the other addresses at the same domain in the same list or account (the
   * address assessed itself is ignored if present). The first 1,000 are read.
   */
  peers?: readonly Peer[] | null;
  /** The account's feedback counts for the domain; null or absent when it has none. */
  feedback?: DomainFeedback | null;
}

/** One reason the confidence moved, with its weight in log-odds (positive raises confidence). */
export interface CatchAllSignal {
  /** The signal's name, one of `SIGNAL_WEIGHTS`' keys. */
  signal: SignalName;
  /** Its contribution in log-odds, rounded to two decimals; 0 is never reported. */
  weight: number;
  /** Plain words: what was seen (`dominant pattern first.last in 9 of 10 peers`). */
  detail: string;
}

/** The model's answer: a confidence from 0 to 100 and the signals behind it. */
export interface CatchAllAssessment {
  /** 100 × logistic(base + Σ weights), rounded to an integer in 0–100. */
  confidence: number;
  signals: CatchAllSignal[];
}

/** The names of every signal the model can report. */
export type SignalName =
  | 'pattern_match'
  | 'pattern_compatible'
  | 'pattern_mismatch'
  | 'near_peer'
  | 'name_like'
  | 'name_partial'
  | 'gibberish'
  | 'numeric_heavy'
  | 'role_local_part'
  | 'provider_mailbox_host'
  | 'provider_security_gateway'
  | 'spf_sane'
  | 'spf_weak'
  | 'spf_absent'
  | 'dmarc_enforced'
  | 'dmarc_monitoring'
  | 'dmarc_absent'
  | 'feedback_bounce_rate';

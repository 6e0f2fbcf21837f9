/**
 * Host-name rules for the domain of a mailbox (RFC 5321 §4.1.2 Domain, RFC 1035/1123 LDH labels),
 * written as one linear scan so that hostile input cannot cause regex backtracking.
 */

/** Longest domain in text form: 255 octets on the wire minus the length octets (RFC 1035 §2.3.4). */
export const MAX_DOMAIN_LENGTH = 253;
/** Longest DNS label (RFC 1035 §2.3.4). */
export const MAX_LABEL_LENGTH = 63;

/** Why a host name is not a valid LDH name. */
export type HostnameProblem =
  | 'empty_label'
  | 'label_too_long'
  | 'domain_too_long'
  | 'bad_character'
  | 'hyphen_at_edge'
  | 'reserved_hyphens';

const DOT = 0x2e;
const HYPHEN = 0x2d;

/** Letters (either case), digits and hyphen: the LDH characters of a label. */
const LDH = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) LDH[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) LDH[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) LDH[c] = 1;
LDH[HYPHEN] = 1;

function isXnPrefixed(domain: string, start: number): boolean {
  return (
    (domain.charCodeAt(start) | 0x20) === 0x78 && // x or X
    (domain.charCodeAt(start + 1) | 0x20) === 0x6e // n or N
  );
}

/**
 * Checks an ASCII host name; null when every label is LDH, 1–63 octets, without a hyphen at either
 * end, and the whole is at most 253 octets. A numeric top-level label is accepted (isemail's mailbox
 * view). Labels with hyphens in the 3rd and 4th positions are reserved (RFC 5891 §4.2.3.1); A-labels
 * (`xn--`) pass only when `allowALabels` says their Punycode was already validated by IDNA.
 */
export function hostnameProblem(domain: string, allowALabels: boolean): HostnameProblem | null {
  const length = domain.length;
  if (length === 0) return 'empty_label';
  if (length > MAX_DOMAIN_LENGTH) return 'domain_too_long';
  let labelStart = 0;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? domain.charCodeAt(i) : DOT;
    if (c !== DOT) {
      if (c >= 128 || LDH[c] === 0) return 'bad_character';
      continue;
    }
    const labelLength = i - labelStart;
    if (labelLength === 0) return 'empty_label';
    if (labelLength > MAX_LABEL_LENGTH) return 'label_too_long';
    if (domain.charCodeAt(labelStart) === HYPHEN || domain.charCodeAt(i - 1) === HYPHEN)
      return 'hyphen_at_edge';
    if (
      labelLength >= 4 &&
      domain.charCodeAt(labelStart + 2) === HYPHEN &&
      domain.charCodeAt(labelStart + 3) === HYPHEN &&
      !(allowALabels && isXnPrefixed(domain, labelStart))
    ) {
      return 'reserved_hyphens';
    }
    labelStart = i + 1;
  }
  return null;
}

/**
 * syntax: is the normalized address an RFC 5321 Mailbox? Dot-string or Quoted-string
 * local part (RFC 6531 UTF-8 allowed), a host name or an address literal, within the length limits.
 * Follows the isemail mailbox view; where we differ, tests/fixtures/syntax-divergences.json says why.
 */
import type { NormalizedAddress, SyntaxCheck, SyntaxErrorCode } from '../report.ts';
import { asciiDomainIgnoringLength, MAX_DOMAIN_INPUT_LENGTH } from './idna.ts';
import { normalizeAddressUntrimmed } from './normalize.ts';
import { type AddressLiteralProblem, addressLiteralProblem } from './syntax-address-literal.ts';
import { type HostnameProblem, hostnameProblem } from './syntax-domain.ts';
import { type LocalPartProblem, MAX_LOCAL_PART_OCTETS, scanLocalPart } from './syntax-local-part.ts';

/** Longest address: the 256-octet path limit minus the angle brackets (RFC 5321 §4.5.3.1.3, RFC 3696 erratum 1690). */
export const MAX_ADDRESS_OCTETS = 254;

const MESSAGES: Record<SyntaxErrorCode, string> = {
  empty: 'The address is empty.',
  no_at_sign: 'The address has no @ sign.',
  no_local_part: 'There is nothing before the @ sign.',
  no_domain: 'There is nothing after the @ sign.',
  local_part_too_long: 'The part before the @ sign is longer than 64 octets.',
  domain_too_long: 'The domain is longer than 253 characters.',
  address_too_long: 'The address is longer than 254 octets.',
  label_too_long: 'A label of the domain (the text between two dots) is longer than 63 characters.',
  invalid_local_part: 'The part before the @ sign is not valid.',
  invalid_domain: 'The domain is not a valid host name.',
  invalid_address_literal: 'The address literal in square brackets is not valid.',
  idna_failed: 'The domain is not a valid internationalized domain name (IDNA, UTS #46).',
};

const LOCAL_PART_MESSAGES: Record<LocalPartProblem, string> = {
  dot_at_edge: 'The part before the @ sign cannot start or end with a dot.',
  consecutive_dots: 'The part before the @ sign cannot hold two dots in a row unless it is quoted.',
  bad_character:
    'The part before the @ sign holds a character that is not allowed there (spaces, commas, brackets ' +
    'and the like need quotes; comments are not accepted).',
  text_after_quoted_string: 'A quoted local part must be the whole part before the @ sign.',
  unclosed_quoted_string: 'The quoted part before the @ sign is not closed.',
  bad_quoted_pair: 'A backslash in the quoted part must be followed by a printable ASCII character.',
  bad_code_point:
    'The part before the @ sign holds a control, invisible, unassigned or otherwise invalid Unicode character.',
};

const HOSTNAME_ERRORS: Record<HostnameProblem, [SyntaxErrorCode, string]> = {
  empty_label: ['invalid_domain', 'The domain has an empty label (a leading, trailing or doubled dot).'],
  label_too_long: ['label_too_long', MESSAGES.label_too_long],
  domain_too_long: ['domain_too_long', MESSAGES.domain_too_long],
  bad_character: [
    'invalid_domain',
    'The domain holds a character other than letters, digits, hyphens and dots.',
  ],
  hyphen_at_edge: ['invalid_domain', 'A label of the domain starts or ends with a hyphen.'],
  reserved_hyphens: [
    'invalid_domain',
    'A label of the domain has hyphens in its 3rd and 4th positions, which are reserved for IDNA.',
  ],
};

const LITERAL_MESSAGES: Record<AddressLiteralProblem, string> = {
  unclosed: 'The address literal must be enclosed in square brackets.',
  bad_ipv4: 'The address literal is not a valid IPv4 address.',
  bad_ipv6: 'The address literal is not a valid IPv6 address.',
  bad_general_literal:
    'The address literal is neither an IP address nor a valid tagged literal (tag:content).',
};

const NON_ASCII = /[^\x00-\x7f]/;
const OPEN_BRACKET = 0x5b;

function invalid(error: SyntaxErrorCode, message: string = MESSAGES[error]): SyntaxCheck {
  return { valid: false, error, message };
}

function hostnameFailure(problem: HostnameProblem): SyntaxCheck {
  const [error, message] = HOSTNAME_ERRORS[problem];
  return invalid(error, message);
}

/** Says why normalize could not turn the domain into ASCII. */
function domainFailure(rawDomain: string): SyntaxCheck {
  if (rawDomain.length > MAX_DOMAIN_INPUT_LENGTH) return invalid('domain_too_long');
  const mapped = NON_ASCII.test(rawDomain) ? asciiDomainIgnoringLength(rawDomain) : rawDomain;
  if (mapped !== null) {
    const problem = hostnameProblem(mapped, true);
    if (problem !== null) return hostnameFailure(problem);
  }
  return invalid('idna_failed');
}

/** Checks a normalized address against the RFC 5321 Mailbox rules (with RFC 6531 local parts). */
export function checkSyntax(address: NormalizedAddress): SyntaxCheck {
  const { email, localPart, rawDomain, asciiDomain } = address;
  if (email.length === 0) return invalid('empty');
  if (rawDomain.length === 0 && !email.includes('@')) return invalid('no_at_sign');
  if (localPart.length === 0) return invalid('no_local_part');
  if (rawDomain.length === 0) return invalid('no_domain');
  // A UTF-16 code unit is at least one UTF-8 octet: a long string fails before it is scanned.
  if (localPart.length > MAX_LOCAL_PART_OCTETS) return invalid('local_part_too_long');
  const shape = scanLocalPart(localPart);
  if (typeof shape === 'string') return invalid('invalid_local_part', LOCAL_PART_MESSAGES[shape]);
  if (shape.octets > MAX_LOCAL_PART_OCTETS) return invalid('local_part_too_long');

  const addressLiteral = rawDomain.charCodeAt(0) === OPEN_BRACKET;
  if (asciiDomain === null) {
    return addressLiteral
      ? invalid('invalid_address_literal', 'The address literal holds non-ASCII characters.')
      : domainFailure(rawDomain);
  }
  if (addressLiteral) {
    const problem = addressLiteralProblem(asciiDomain);
    if (problem !== null) return invalid('invalid_address_literal', LITERAL_MESSAGES[problem]);
  } else {
    // normalize already guarantees this; checked again because it costs little and keeps this
    // function honest for any NormalizedAddress it is given.
    const problem = hostnameProblem(asciiDomain, true);
    if (problem !== null) return hostnameFailure(problem);
  }
  if (shape.octets + 1 + asciiDomain.length > MAX_ADDRESS_OCTETS) return invalid('address_too_long');
  return {
    valid: true,
    quotedLocalPart: shape.quoted,
    addressLiteral,
    internationalized: shape.internationalized,
  };
}

/**
 * Checks a raw string exactly as given, without trimming: what the conformance suites expect, where
 * surrounding white space is folding white space and makes the address invalid. The pipeline trims
 * first (normalizeAddress), so `" jane@example.com "` is valid there.
 */
export function checkAddressSyntax(raw: string): SyntaxCheck {
  return checkSyntax(normalizeAddressUntrimmed(raw));
}

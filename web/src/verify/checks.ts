/**
 * The checks of a verification result in words. Every key of `checks` is shown; the known ones in
 * this order with their own wording, any newer one (the API may add some) after them, as it comes.
 * A check that was never made says so, whatever its field holds: the API's booleans report only
 * what a check disproved, so an unasked mailbox is `mailbox_exists: true`.
 */

export interface CheckLine {
  key: string;
  label: string;
  value: string;
}

const KNOWN: Record<string, string> = {
  syntax: 'Well-formed address',
  domain_exists: 'Domain exists',
  mx_records: 'Mail server (MX) records',
  mailbox_exists: 'Mailbox exists',
  smtp: 'Mailbox server said',
  catch_all: 'Domain accepts every address (catch-all)',
  catch_all_confidence: 'Catch-all confidence',
  disposable: 'Disposable address service',
  role_based: 'Role account (info@, sales@…)',
  free_provider: 'Free mailbox provider',
  suggestions: 'Suggested corrections',
};

const SMTP_WORDS: Record<string, string> = {
  deliverable: 'Deliverable',
  undeliverable: 'Undeliverable',
  catch_all: 'Accepts every address',
  mailbox_full: 'Mailbox full',
  mailbox_disabled: 'Mailbox disabled',
  unknown: 'No clear answer',
  skipped: 'Not asked',
};

function words(key: string, value: unknown): string {
  if (value === null || value === undefined) return 'Not known';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (key === 'smtp' && typeof value === 'string') return SMTP_WORDS[value] ?? value;
  if (Array.isArray(value)) return value.length === 0 ? 'None' : value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function humanize(key: string): string {
  const spaced = key.replaceAll('_', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** What a result needs to tell which checks were made. */
interface Checked {
  reason: string;
  checks: Record<string, unknown>;
}

/**
 * Whether the mailbox was never checked: the server gave no verdict on it (`smtp` is `unknown`:
 * greylisted, blocked, timed out, unreachable…) or was not asked (`skipped`: our DNS failed, or
 * probing is off), and nothing else disproved it. Such a result confirms no mailbox.
 */
export function mailboxNotChecked({ checks }: Checked): boolean {
  return checks.mailbox_exists === true && (checks.smtp === 'unknown' || checks.smtp === 'skipped');
}

/** The DNS checks a failed lookup leaves open: whether the domain and its MX exist is not known. */
const DNS_CHECKS = new Set(['domain_exists', 'mx_records']);

/** The words of a check that was not made, or null when it was. */
function unmade(key: string, result: Checked): string | null {
  if (key === 'mailbox_exists' && mailboxNotChecked(result)) return 'Not checked';
  if (result.reason === 'dns_error' && DNS_CHECKS.has(key)) return 'Not known: the DNS lookup failed';
  return null;
}

/** Every check of the result, known ones first. */
export function checkLines(result: Checked): CheckLine[] {
  const { checks } = result;
  const known = Object.keys(KNOWN).filter((key) => key in checks);
  const others = Object.keys(checks).filter((key) => !(key in KNOWN));
  return [...known, ...others].map((key) => ({
    key,
    label: KNOWN[key] ?? humanize(key),
    value: unmade(key, result) ?? words(key, checks[key]),
  }));
}

/** Why a status was given, in a sentence (the documented reasons). */
export const REASONS: Record<string, string> = {
  syntax_invalid: 'The address is not well-formed.',
  domain_not_found: 'The domain does not exist.',
  null_mx: 'The domain says it takes no mail (null MX).',
  no_mail_host: 'The domain has no mail server and no address.',
  implicit_mx: 'The domain has no MX records; mail would go to its address record.',
  mailbox_rejected: 'The mailbox server rejected this mailbox.',
  mailbox_disabled: 'The mailbox is disabled.',
  multiple_risks: 'Several risks at once (disposable, role account, mailbox full).',
  disposable: 'A disposable (throw-away) address service.',
  role_account: 'A role account shared by a team.',
  mailbox_confirmed: 'The mailbox server confirmed this mailbox.',
  catch_all: 'The domain accepts every address, so this one cannot be confirmed.',
  mailbox_full: 'The mailbox is full.',
  greylisted: 'The mailbox server asked to try again later (greylisting).',
  blocked: 'The mailbox server refused to answer our probe.',
  policy: 'The mailbox server refused by a rule of its own, without saying whether the mailbox exists.',
  message_refused: 'The mailbox server refused the message (its size or content), not the mailbox.',
  system_error: 'The mailbox server had a problem of its own and said nothing about the mailbox.',
  timeout: 'The mailbox server did not answer in time.',
  connect_failed: 'The mailbox server could not be reached.',
  tls_failed: 'The secure connection to the mailbox server failed.',
  protocol_error: 'The mailbox server answered in an unexpected way.',
  probe_refused: 'The mail server is at a private address, which is not probed.',
  probe_skipped: 'Mailbox probing is turned off.',
  dns_error: 'Our DNS lookup failed; this verification was not charged.',
  bounced: 'Mail to it has bounced before (your feedback).',
};

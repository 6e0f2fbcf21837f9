/**
 * The verification result as JSON Schema: it serializes responses (every field is
 * listed, so none is dropped) and documents them in the OpenAPI document.
 */
import {
  type CatchAllProbeOutcome,
  type MailboxProviderKind,
  REASONS,
  type SmtpVerdict,
  STATUS_NAMES,
} from '../../verification/report.ts';

export { STATUS_NAMES };

// Records keyed by the unions, so a verdict added to the core breaks the build here.
const SMTP_VERDICTS: Record<SmtpVerdict, true> = {
  deliverable: true,
  undeliverable: true,
  catch_all: true,
  mailbox_full: true,
  mailbox_disabled: true,
  unknown: true,
  skipped: true,
};

const PROVIDER_KINDS: Record<MailboxProviderKind, true> = { mailbox_host: true, security_gateway: true };
const CATCH_ALL_PROBE_OUTCOMES: Record<CatchAllProbeOutcome, true> = {
  accepted: true,
  rejected: true,
  inconclusive: true,
};

/** An SMTP reply as the evidence shows it. */
const smtpReplySchema = (description: string) =>
  ({
    type: ['object', 'null'],
    description,
    required: ['code', 'enhanced_code', 'message'],
    properties: {
      code: {
        type: 'integer',
        minimum: 0,
        maximum: 599,
        description: 'The reply code (250, 451, 550...); 0 when the answer was not a well-formed reply.',
      },
      enhanced_code: {
        type: ['string', 'null'],
        description: 'The RFC 3463 enhanced status code (`5.1.1`), when the server gave one.',
      },
      message: {
        type: 'string',
        description:
          "The reply's text on one line (line breaks and controls as spaces), at most 512 characters.",
      },
    },
  }) as const;

/** Schema of `evidence`. */
const evidenceSchema = {
  type: 'object',
  description: 'What the verdict rests on; null and [] where a stage did not run or learnt nothing.',
  required: ['mx_host', 'mx_address', 'provider', 'smtp_reply', 'catch_all_probe', 'catch_all_signals'],
  properties: {
    mx_host: {
      type: ['string', 'null'],
      description: 'The MX host the probe talked to (or last tried, when none answered); null when none.',
    },
    mx_address: {
      type: ['string', 'null'],
      description: "That host's IP address the probe connected to (or was refused connecting to).",
    },
    provider: {
      type: ['object', 'null'],
      description:
        "The mail provider recognised from the MX host names; null when they are nobody's we know.",
      required: ['id', 'name', 'kind'],
      properties: {
        id: { type: 'string', description: 'A stable name: `google`, `microsoft`, `proofpoint`...' },
        name: { type: 'string', description: 'How people call the service.' },
        kind: {
          type: 'string',
          enum: Object.keys(PROVIDER_KINDS),
          description:
            '`mailbox_host` keeps the mailboxes itself; `security_gateway` filters mail in front of them.',
        },
      },
    },
    smtp_reply: smtpReplySchema('The SMTP reply that decided; null when no server answered.'),
    catch_all_probe: {
      type: 'object',
      description: "The domain's catch-all probe: RCPT TO a random address nobody has.",
      required: ['ran', 'outcome', 'reply'],
      properties: {
        ran: {
          type: 'boolean',
          description: 'It was asked in the session that verified this address.',
        },
        outcome: {
          type: ['string', 'null'],
          enum: [...Object.keys(CATCH_ALL_PROBE_OUTCOMES), null],
          description:
            '`accepted` (catch-all), `rejected` (no such mailbox: not catch-all), `inconclusive`; remembered from an earlier probe when `ran` is false; null when not known.',
        },
        reply: smtpReplySchema('Its reply, when it ran for this address; else null.'),
      },
    },
    catch_all_signals: {
      type: 'array',
      description: 'For an address at a catch-all domain, the signals behind its confidence; else [].',
      items: {
        type: 'object',
        required: ['signal', 'weight', 'detail'],
        properties: {
          signal: { type: 'string', description: 'The signal’s name.' },
          weight: {
            type: 'number',
            description: 'Its weight: positive raised the confidence, negative lowered it.',
          },
          detail: { type: 'string', description: 'What was seen, in plain words.' },
        },
      },
    },
  },
} as const;

const CHECK_FIELDS = [
  'syntax',
  'domain_exists',
  'mx_records',
  'mailbox_exists',
  'disposable',
  'role_based',
  'suggestions',
  'free_provider',
  'catch_all',
  'smtp',
  'catch_all_confidence',
] as const;

/** Shared schema `VerificationResult`. */
export const verificationResultSchema = {
  $id: 'VerificationResult',
  type: 'object',
  description: 'The verification of one address.',
  required: ['email', 'checks', 'score', 'status', 'reason', 'duration_ms', 'evidence'],
  properties: {
    email: { type: 'string', description: 'The address as submitted, trimmed.' },
    checks: {
      type: 'object',
      required: [...CHECK_FIELDS],
      properties: {
        syntax: { type: 'boolean', description: 'RFC 5321 mailbox syntax.' },
        domain_exists: { type: 'boolean', description: 'The domain exists in DNS (not NXDOMAIN).' },
        mx_records: { type: 'boolean', description: 'The domain has MX records.' },
        mailbox_exists: {
          type: 'boolean',
          description:
            'Likely exists: false only when the mailbox server rejected it or the domain takes no mail.',
        },
        disposable: { type: 'boolean', description: 'A disposable (throw-away) address provider.' },
        role_based: { type: 'boolean', description: 'A role account (info@, sales@, ...).' },
        suggestions: {
          type: 'array',
          items: { type: 'string' },
          description: 'Whole corrected addresses for a likely typo; [] when none.',
        },
        free_provider: { type: 'boolean', description: 'A free mailbox provider (gmail.com, ...).' },
        catch_all: {
          type: ['boolean', 'null'],
          description: 'The domain accepts every address; null when not known.',
        },
        smtp: { type: 'string', enum: Object.keys(SMTP_VERDICTS), description: 'The SMTP probe verdict.' },
        catch_all_confidence: {
          type: ['integer', 'null'],
          minimum: 0,
          maximum: 100,
          description: 'How likely an address at a catch-all domain is real, 0-100; null elsewhere.',
        },
      },
    },
    score: { type: 'integer', minimum: 0, maximum: 100, description: 'How safe the address is to send to.' },
    status: { type: 'string', enum: STATUS_NAMES },
    reason: { type: 'string', enum: [...REASONS], description: 'Why this status was given.' },
    duration_ms: { type: 'integer', minimum: 0, description: 'Time spent verifying, milliseconds.' },
    evidence: evidenceSchema,
  },
  examples: [
    {
      email: 'Jane.Doe@Example.com',
      checks: {
        syntax: true,
        domain_exists: true,
        mx_records: true,
        mailbox_exists: true,
        disposable: false,
        role_based: false,
        suggestions: [],
        free_provider: false,
        catch_all: false,
        smtp: 'deliverable',
        catch_all_confidence: null,
      },
      score: 97,
      status: 'VALID',
      reason: 'mailbox_confirmed',
      duration_ms: 143,
      evidence: {
        mx_host: 'aspmx.l.google.com',
        mx_address: '142.250.102.27',
        provider: { id: 'google', name: 'Google (Gmail, Google Workspace)', kind: 'mailbox_host' },
        smtp_reply: { code: 250, enhanced_code: '2.1.5', message: 'OK' },
        catch_all_probe: {
          ran: true,
          outcome: 'rejected',
          reply: {
            code: 550,
            enhanced_code: '5.1.1',
            message: 'The email account that you tried to reach does not exist.',
          },
        },
        catch_all_signals: [],
      },
    },
  ],
} as const;

/** Shared schema `BulkResponse`. */
export const bulkResponseSchema = {
  $id: 'BulkResponse',
  type: 'object',
  description: 'Results of the processed entries in submitted order, and the entries left for lack of quota.',
  required: ['results', 'unprocessed'],
  properties: {
    results: {
      type: 'array',
      items: { $ref: 'VerificationResult#' },
      description: 'One result per processed entry, in submitted order (duplicates repeat their result).',
    },
    unprocessed: {
      type: 'array',
      items: { type: 'string' },
      description: 'Entries not verified because the monthly quota ran out, as submitted, in order.',
    },
  },
} as const;

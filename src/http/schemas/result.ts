/**
 * The verification result (DESIGN §1) as JSON Schema: it serializes responses (every field is
 * listed, so none is dropped) and documents them in the OpenAPI document.
 */
import { REASONS, type SmtpVerdict, STATUS_NAMES } from '../../verification/report.ts';

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
] as const;

/** Shared schema `VerificationResult`. */
export const verificationResultSchema = {
  $id: 'VerificationResult',
  type: 'object',
  description: 'The verification of one address.',
  required: ['email', 'checks', 'score', 'status', 'reason', 'duration_ms'],
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
      },
    },
    score: { type: 'integer', minimum: 0, maximum: 100, description: 'How safe the address is to send to.' },
    status: { type: 'string', enum: STATUS_NAMES },
    reason: { type: 'string', enum: [...REASONS], description: 'Why this status was given.' },
    duration_ms: { type: 'integer', minimum: 0, description: 'Time spent verifying, milliseconds.' },
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
      },
      score: 97,
      status: 'VALID',
      reason: 'mailbox_confirmed',
      duration_ms: 143,
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

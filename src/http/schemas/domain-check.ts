/**
 * The sender-domain check (POST /api/v1/domains/check) as JSON Schema: the request, and the report
 * it answers with. It validates, serializes and documents the OpenAPI document the dashboard's
 * client is typed from. The domain's own rules (a host name; an IDN becomes its A-label) are
 * checked by the route after the schema.
 */
import { MAX_DKIM_SELECTORS } from '../../sender-checks/domain-name.ts';
import { SENDER_CHECKS } from '../../sender-checks/finding.ts';

/** POST /api/v1/domains/check. Unknown properties are ignored. */
export const domainCheckBodySchema = {
  type: 'object',
  required: ['domain'],
  properties: {
    domain: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      pattern: '\\S',
      description:
        'The sending domain, e.g. `example.com`; an internationalized name is checked in its A-label form.',
      examples: ['example.com'],
    },
    dkim_selectors: {
      type: 'array',
      maxItems: MAX_DKIM_SELECTORS,
      items: {
        type: 'string',
        minLength: 1,
        maxLength: 253,
        pattern:
          '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
      },
      description: `Up to ${MAX_DKIM_SELECTORS} DKIM selectors (letters, digits, hyphens, dots). Absent or empty: a short list of common ones.`,
      examples: [['google', 's1']],
    },
  },
} as const;

export interface DomainCheckBody {
  domain: string;
  dkim_selectors?: string[];
}

const count = { type: 'integer', minimum: 0 } as const;

const findingSchema = {
  type: 'object',
  required: ['check', 'code', 'status', 'summary', 'fix', 'details'],
  properties: {
    check: { type: 'string', enum: [...SENDER_CHECKS] },
    code: {
      type: 'string',
      description: 'Stable name of the finding (docs/deliverability.md lists them).',
      examples: ['spf_too_many_lookups'],
    },
    status: { type: 'string', enum: ['pass', 'warn', 'fail', 'info'] },
    summary: { type: 'string', description: 'What was found, in plain words.' },
    fix: {
      type: ['string', 'null'],
      description: 'What to do about it, written out; null when nothing needs doing.',
    },
    details: {
      type: 'object',
      additionalProperties: true,
      description: 'The facts behind the finding (records seen, hosts tried); their shape may grow.',
    },
  },
} as const;

/** The body of a 200 from POST /api/v1/domains/check. */
export const domainReportSchema = {
  type: 'object',
  required: [
    'domain',
    'grade',
    'score',
    'checked_at',
    'duration_ms',
    'cached',
    'dkim_selectors',
    'dkim_selectors_given',
    'complete',
    'counts',
    'findings',
  ],
  properties: {
    domain: { type: 'string', description: 'The domain checked, in ASCII (A-label) form.' },
    grade: {
      type: ['string', 'null'],
      enum: ['A', 'B', 'C', 'D', 'F', null],
      description:
        'Null when the DNS resolver of the service cannot be trusted (the one finding is then `resolver_untrustworthy`): no grade rests on its answers.',
    },
    score: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 100,
      description: 'The points behind the grade; null with the grade.',
    },
    checked_at: {
      type: 'string',
      format: 'date-time',
      description: 'When the checks ran (earlier than now for a cached report).',
    },
    duration_ms: count,
    cached: {
      type: 'boolean',
      description: 'The report was made by an earlier request within the last few minutes.',
    },
    dkim_selectors: {
      type: 'array',
      items: { type: 'string' },
      description: 'The DKIM selectors looked at.',
    },
    dkim_selectors_given: { type: 'boolean', description: 'Whether they were the caller’s.' },
    complete: {
      type: 'boolean',
      description:
        'False when a lookup failed or a check did not finish (findings `*_lookup_failed`, `check_unfinished`), or when the resolver cannot be trusted (`resolver_untrustworthy`): such a report is not reused, check again.',
    },
    counts: {
      type: 'object',
      required: ['pass', 'warn', 'fail', 'info'],
      properties: { pass: count, warn: count, fail: count, info: count },
    },
    findings: { type: 'array', items: findingSchema },
  },
} as const;

/**
 * The probe host's health report (GET /api/v1/doctor) as JSON Schema: it serializes the answer and
 * documents it in the OpenAPI document the dashboard's client is typed from.
 */

const count = { type: 'integer', minimum: 0 } as const;
const status = { type: 'string', enum: ['pass', 'warn', 'fail', 'skipped'] } as const;

/** One finding of the report. */
const findingSchema = {
  type: 'object',
  required: ['check', 'status', 'summary', 'details'],
  properties: {
    check: {
      type: 'string',
      enum: ['port_25', 'egress_address', 'helo', 'reverse_dns', 'dnsbl', 'spf', 'resolver'],
    },
    status,
    summary: { type: 'string', description: 'What was found, in plain words.' },
    fix: { type: 'string', description: 'What to do about it (absent when nothing needs doing).' },
    details: {
      type: 'object',
      additionalProperties: true,
      description: 'The facts behind the finding (hosts tried, records seen); their shape may grow.',
    },
  },
} as const;

/** The body of GET /api/v1/doctor. */
export const doctorReportSchema = {
  type: 'object',
  required: ['checked_at', 'egress_ip', 'counts', 'findings'],
  properties: {
    checked_at: { type: 'string', format: 'date-time', description: 'When the checks ran.' },
    egress_ip: {
      type: ['string', 'null'],
      description: 'The address mail servers see this host at, when it could be learned.',
    },
    counts: {
      type: 'object',
      required: ['pass', 'warn', 'fail', 'skipped'],
      properties: { pass: count, warn: count, fail: count, skipped: count },
    },
    findings: { type: 'array', items: findingSchema },
  },
} as const;

/** `?refresh=1` runs the checks again (at most once every few seconds). */
export const doctorQuerySchema = {
  type: 'object',
  properties: { refresh: { type: 'string', enum: ['0', '1'] } },
} as const;

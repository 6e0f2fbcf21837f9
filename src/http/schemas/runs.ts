/**
 * Runs of integrations as JSON Schema: the request that starts one (and a schedule's
 * run settings, which are the same), and a run as the API shows it.
 */
import type { MemberStatus, WriteBackOptions } from '../../integrations/ports.ts';
import type { RunScope } from '../../integrations/runs/ports.ts';

const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** Member statuses a run may read (archived contacts are never read). */
export const RUN_MEMBER_STATUSES = [
  'subscribed',
  'unsubscribed',
  'cleaned',
  'pending',
  'transactional',
] as const;

/** What to write back; every field optional, absent ones take their defaults. */
export const writeBackSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  description:
    'What to write to Mailchimp; `null` makes a dry run (verified and counted, nothing written). Absent: fields, tags and segments.',
  properties: {
    fields: { type: 'boolean', description: 'MV_STATUS, MV_SCORE, MV_CHECKED (default true).' },
    tags: { type: 'boolean', description: 'mailvet-valid|risky|invalid, exactly one active (default true).' },
    segments: { type: 'boolean', description: 'The three score-band saved segments (default true).' },
    unsubscribe_invalid: {
      type: 'boolean',
      description: 'Unsubscribe members found invalid (default false). Nothing is ever deleted or archived.',
    },
  },
} as const;

/** The run settings shared by a run request and a schedule. */
export const runSettingsProperties = {
  statuses: {
    type: 'array',
    minItems: 1,
    maxItems: RUN_MEMBER_STATUSES.length,
    uniqueItems: true,
    items: { type: 'string', enum: RUN_MEMBER_STATUSES },
    description: 'Member statuses to read (default `["subscribed"]`).',
  },
  scope: {
    type: 'string',
    enum: ['all', 'changed', 'stale'],
    description:
      '`changed`: members changed since the last completed run of the audience; `stale`: MV_CHECKED missing or older than `stale_days` (default `all`).',
  },
  stale_days: { type: 'integer', minimum: 1, maximum: 3650, description: 'For `stale` (default 90).' },
  write_back: writeBackSchema,
} as const;

/** POST /api/v1/integrations/{id}/runs. */
export const runBodySchema = {
  type: 'object',
  required: ['audience_id'],
  additionalProperties: false,
  properties: {
    audience_id: { type: 'string', minLength: 1, maxLength: 100 },
    ...runSettingsProperties,
  },
} as const;

/** The run settings as the API receives them. */
export interface RunSettingsBody {
  statuses?: MemberStatus[];
  scope?: RunScope;
  stale_days?: number;
  write_back?: {
    fields?: boolean;
    tags?: boolean;
    segments?: boolean;
    unsubscribe_invalid?: boolean;
  } | null;
}

export interface RunBody extends RunSettingsBody {
  audience_id: string;
}

/** The settings with their defaults filled in. */
export function runSettingsOf(body: RunSettingsBody): {
  statuses: MemberStatus[];
  scope: RunScope;
  staleDays: number;
  writeBack: WriteBackOptions | null;
} {
  const writeBack = body.write_back === undefined ? {} : body.write_back;
  return {
    statuses: body.statuses ?? ['subscribed'],
    scope: body.scope ?? 'all',
    staleDays: body.stale_days ?? 90,
    writeBack:
      writeBack === null
        ? null
        : {
            fields: writeBack.fields ?? true,
            tags: writeBack.tags ?? true,
            segments: writeBack.segments ?? true,
            unsubscribeInvalid: writeBack.unsubscribe_invalid ?? false,
          },
  };
}

/** Write-back options as the API shows them. */
export function writeBackView(writeBack: WriteBackOptions | null) {
  return writeBack === null
    ? null
    : {
        fields: writeBack.fields,
        tags: writeBack.tags,
        segments: writeBack.segments,
        unsubscribe_invalid: writeBack.unsubscribeInvalid,
      };
}

const count = { type: 'integer', minimum: 0 } as const;

/** Shared schema `Run`. */
export const runSchema = {
  $id: 'Run',
  type: 'object',
  required: [
    'id',
    'integration_id',
    'audience_id',
    'audience_name',
    'state',
    'trigger',
    'schedule_id',
    'statuses',
    'scope',
    'stale_days',
    'write_back',
    'list_id',
    'results_expired',
    'results_expired_at',
    'counts',
    'message',
    'created_at',
    'started_at',
    'finished_at',
  ],
  properties: {
    id: { type: 'string' },
    integration_id: { type: 'string' },
    audience_id: { type: 'string' },
    audience_name: { type: 'string' },
    state: {
      type: 'string',
      enum: ['queued', 'reading', 'verifying', 'writing', 'completed', 'paused', 'failed', 'cancelled'],
      description:
        '`paused`: its list is paused (the quota ran out, or its owner paused it); it goes on with the list.',
    },
    trigger: { type: 'string', enum: ['manual', 'schedule'] },
    schedule_id: { type: ['string', 'null'] },
    statuses: { type: 'array', items: { type: 'string' } },
    scope: { type: 'string', enum: ['all', 'changed', 'stale'] },
    stale_days: { type: 'integer' },
    write_back: {
      type: ['object', 'null'],
      properties: {
        fields: { type: 'boolean' },
        tags: { type: 'boolean' },
        segments: { type: 'boolean' },
        unsubscribe_invalid: { type: 'boolean' },
      },
    },
    list_id: {
      type: ['string', 'null'],
      description: "The list job its members were verified in: its results are the run's.",
    },
    results_expired: {
      type: 'boolean',
      description:
        "True once the account's retention deleted its list's rows and results (`retention_days` after the list finished): the run keeps its counts, and the list's results answer 410 `results_expired`.",
    },
    results_expired_at: { ...nullableTime, description: 'When they were deleted; null while kept.' },
    counts: {
      type: 'object',
      required: ['members', 'verified', 'written', 'write_errors', 'valid', 'risky', 'invalid'],
      properties: {
        members: { ...count, description: 'Members read.' },
        verified: count,
        written: { ...count, description: 'Members written back.' },
        write_errors: { ...count, description: 'Members Mailchimp refused to update.' },
        valid: count,
        risky: count,
        invalid: count,
      },
    },
    message: { type: ['string', 'null'] },
    created_at: time,
    started_at: nullableTime,
    finished_at: nullableTime,
  },
} as const;

/** Shared schema `RunList`. */
export const runListSchema = {
  $id: 'RunList',
  type: 'object',
  required: ['runs', 'next_cursor'],
  properties: {
    runs: { type: 'array', items: { $ref: 'Run#' } },
    next_cursor: { type: ['string', 'null'] },
  },
} as const;

export const runParams = {
  type: 'object',
  required: ['id', 'runId'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100 },
    runId: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

export const runSchemas = [runSchema, runListSchema] as const;

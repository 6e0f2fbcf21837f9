/**
 * Schedules of integration runs as JSON Schema: the create and change bodies, and
 * the `Schedule` answer. A schedule's run settings (`scope`, `stale_days`, `statuses`,
 * `write_back`) are a run request's (`runs.ts`), with the same defaults.
 */
import { RUN_MEMBER_STATUSES, type RunSettingsBody, runSettingsProperties } from './runs.ts';

const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

const when = {
  cron: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'Five fields (minute hour day-of-month month day-of-week), as `0 3 * * 1`, or `@daily`…',
  },
  timezone: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: 'The IANA time zone the expression is read in; default `UTC`.',
  },
} as const;

/** POST /api/v1/integrations/{id}/schedules. */
export const createScheduleBodySchema = {
  type: 'object',
  required: ['audience_id', 'cron'],
  additionalProperties: false,
  properties: {
    audience_id: { type: 'string', minLength: 1, maxLength: 100 },
    ...when,
    ...runSettingsProperties,
  },
} as const;

export interface CreateScheduleBody extends RunSettingsBody {
  audience_id: string;
  cron: string;
  timezone?: string;
}

/** PATCH /api/v1/integrations/{id}/schedules/{scheduleId}. */
export const changeScheduleBodySchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    ...when,
    ...runSettingsProperties,
    paused: {
      type: 'boolean',
      description: 'A paused schedule starts no run; resuming counts its next slot from now.',
    },
  },
} as const;

export type ChangeScheduleBody = Partial<Omit<CreateScheduleBody, 'audience_id'>> & { paused?: boolean };

export const scheduleParams = {
  type: 'object',
  required: ['id', 'scheduleId'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100 },
    scheduleId: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

/** Shared schema `Schedule`. */
export const scheduleSchema = {
  $id: 'Schedule',
  type: 'object',
  required: [
    'id',
    'integration_id',
    'audience_id',
    'cron',
    'timezone',
    'scope',
    'stale_days',
    'statuses',
    'write_back',
    'paused',
    'next_run_at',
    'last_run_at',
    'last_run_id',
    'last_error',
    'created_at',
  ],
  properties: {
    id: { type: 'string' },
    integration_id: { type: 'string' },
    audience_id: { type: 'string' },
    cron: { type: 'string' },
    timezone: { type: 'string' },
    scope: { type: 'string', enum: ['all', 'changed', 'stale'] },
    stale_days: { type: 'integer' },
    statuses: { type: 'array', items: { type: 'string', enum: RUN_MEMBER_STATUSES } },
    write_back: {
      type: ['object', 'null'],
      required: ['fields', 'tags', 'segments', 'unsubscribe_invalid'],
      properties: {
        fields: { type: 'boolean' },
        tags: { type: 'boolean' },
        segments: { type: 'boolean' },
        unsubscribe_invalid: { type: 'boolean' },
      },
    },
    paused: { type: 'boolean' },
    next_run_at: { ...nullableTime, description: 'The slot due next; null while paused.' },
    last_run_at: {
      ...nullableTime,
      description: 'When the schedule last fired, whether or not it started a run.',
    },
    last_run_id: { type: ['string', 'null'], description: 'The run its last firing started.' },
    last_error: { type: ['string', 'null'], description: 'Why its last firing started no run.' },
    created_at: time,
  },
} as const;

/** Shared schema `ScheduleList`. */
export const scheduleListSchema = {
  $id: 'ScheduleList',
  type: 'object',
  required: ['schedules'],
  properties: { schedules: { type: 'array', items: { $ref: 'Schedule#' } } },
} as const;

export const scheduleSchemas = [scheduleSchema, scheduleListSchema] as const;

/**
 * Sender feedback as JSON Schema: one event, the bulk form (1 to 10,000 events, in
 * the shape of the bulk verification), and the answer's counts. Unknown properties are ignored,
 * as in every request body of the API.
 */
import { MAX_FEEDBACK_EVENTS_PER_REQUEST } from '../../feedback/feedback-service.ts';
import { FEEDBACK_EVENTS, type FeedbackEvent } from '../../feedback/ports.ts';
import { addressValueSchema } from './requests.ts';

const eventProperties = {
  email: addressValueSchema,
  event: {
    type: 'string',
    enum: [...FEEDBACK_EVENTS],
    description:
      '`hard_bounce` makes the address `bounced` (INVALID) for this account until a later `delivered`; ' +
      '`soft_bounce` and `complaint` are kept for statistics and change no verdict.',
  },
  at: {
    type: 'string',
    format: 'date-time',
    maxLength: 64,
    description:
      'When it happened (ISO 8601 with a time zone, from 1970 to at most 5 minutes ahead of our clock); now when absent.',
    examples: ['2026-11-20T08:15:00Z'],
  },
} as const;

/** POST /api/v1/feedback. */
export const feedbackBodySchema = {
  type: 'object',
  required: ['email', 'event'],
  properties: eventProperties,
} as const;

/** POST /api/v1/feedback/bulk. */
export const feedbackBulkBodySchema = {
  type: 'object',
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_FEEDBACK_EVENTS_PER_REQUEST,
      items: { type: 'object', required: ['email', 'event'], properties: eventProperties },
      description: `1 to ${MAX_FEEDBACK_EVENTS_PER_REQUEST.toLocaleString('en')} events; all are recorded, or none.`,
    },
  },
} as const;

/** Shared schema `FeedbackRecorded`. */
export const feedbackRecordedSchema = {
  $id: 'FeedbackRecorded',
  type: 'object',
  description: 'What the request stored.',
  required: ['recorded', 'duplicates'],
  properties: {
    recorded: { type: 'integer', minimum: 0, description: 'Events stored now.' },
    duplicates: {
      type: 'integer',
      minimum: 0,
      description: 'Events already stored (same address, event and instant) or repeated in the request.',
    },
  },
  examples: [{ recorded: 2, duplicates: 1 }],
} as const;

export const feedbackSchemas = [feedbackRecordedSchema] as const;

export interface FeedbackEventBody {
  email: string;
  event: FeedbackEvent;
  at?: string;
}

export interface FeedbackBulkBody {
  events: FeedbackEventBody[];
}

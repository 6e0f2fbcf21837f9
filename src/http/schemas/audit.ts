/**
 * The audit log as JSON Schema: one entry (shared schema `AuditEntry`), a page of them
 * (`AuditLogPage`), and the query of GET /api/v1/audit. Action, actor and target names come from
 * the audit domain's tables, so the document lists exactly what the log records.
 */
import { AUDIT_ACTION_NAMES, AUDIT_TARGET_TYPES } from '../../audit/actions.ts';
import { ENTRY_ID_PATTERN } from '../../audit/entry-id.ts';
import { AUDIT_ACTOR_TYPES } from '../../audit/ports.ts';

/** Entries a page holds by default, and at most. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const entryId = {
  type: 'string',
  pattern: ENTRY_ID_PATTERN,
  description: 'Time-ordered: a newer entry has a greater id.',
  examples: ['aud_0195f3a2c4d07a3e9b1f2c3d4e5f6a7b'],
} as const;

/** Shared schema `AuditEntry`. */
export const auditEntrySchema = {
  $id: 'AuditEntry',
  type: 'object',
  description:
    'One change in the account; entries are never changed or deleted (they expire after 400 days).',
  required: ['id', 'at', 'actor', 'ip', 'action', 'target', 'details'],
  properties: {
    id: entryId,
    at: { type: 'string', format: 'date-time', description: 'When the change was made (UTC).' },
    actor: {
      type: 'object',
      description: 'Who made it: a dashboard user, an API key, or an operator at the command line.',
      required: ['type', 'id', 'label'],
      properties: {
        type: { type: 'string', enum: [...AUDIT_ACTOR_TYPES] },
        id: {
          type: 'string',
          description: "The user's or key's id; the operator's login at the command line.",
        },
        label: {
          type: 'string',
          description: "The user's email, the key's name and prefix, or the operator's login and host.",
        },
      },
    },
    ip: {
      type: ['string', 'null'],
      description: 'The client address the change came from; null at the command line.',
    },
    action: { type: 'string', enum: AUDIT_ACTION_NAMES, description: 'What happened.' },
    target: {
      type: 'object',
      description: 'What it happened to.',
      required: ['type', 'id'],
      properties: {
        type: { type: 'string', enum: [...AUDIT_TARGET_TYPES] },
        id: {
          type: 'string',
          description: 'Its id; for an erased address, a keyed hash (never the address itself).',
        },
      },
    },
    details: {
      type: 'object',
      additionalProperties: true,
      description:
        'More about the change; for settings and limits `before` and `after`, with the fields that changed.',
    },
  },
  examples: [
    {
      id: 'aud_0195f3a2c4d07a3e9b1f2c3d4e5f6a7b',
      at: '2026-11-20T08:15:00.000Z',
      actor: { type: 'user', id: 'f3b0c442-98fc-4c14-9a2e-5d1f0e9b7c11', label: 'jane@example.com' },
      ip: '203.0.113.7',
      action: 'key.updated',
      target: { type: 'key', id: '7d9e1c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6' },
      details: { before: { rate_limit: null }, after: { rate_limit: 5 } },
    },
  ],
} as const;

/** Shared schema `AuditLogPage`. */
export const auditLogPageSchema = {
  $id: 'AuditLogPage',
  type: 'object',
  required: ['entries', 'next_before'],
  properties: {
    entries: { type: 'array', items: { $ref: 'AuditEntry#' }, description: 'Newest first.' },
    next_before: {
      type: ['string', 'null'],
      description: 'Pass as `before` for the next (older) page; null on the last page.',
    },
  },
} as const;

export const auditSchemas = [auditEntrySchema, auditLogPageSchema] as const;

/** The query string of GET /api/v1/audit. */
export const auditQuerySchema = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: AUDIT_ACTION_NAMES, description: 'Only entries of this action.' },
    before: {
      ...entryId,
      description: 'Only entries older than this one: `next_before` of the previous page.',
    },
    limit: {
      type: 'string',
      pattern: '^[0-9]{1,3}$',
      description: `Entries per page, 1 to ${AUDIT_PAGE_MAX} (default ${AUDIT_PAGE_DEFAULT}).`,
    },
  },
} as const;

export interface AuditQueryString {
  action?: (typeof AUDIT_ACTION_NAMES)[number];
  before?: string;
  limit?: string;
}

/**
 * Accounts, sessions, keys and usage as JSON Schema: they validate requests,
 * serialize responses and document both in the OpenAPI document the dashboard's client is typed from.
 */
import { MAX_PASSWORD_LENGTH } from '../../accounts/passwords.ts';
import { MAX_USER_EMAIL_LENGTH } from '../../accounts/users.ts';
import { STATUS_NAMES } from './result.ts';

const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const day = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'A UTC day, YYYY-MM-DD.',
} as const;
const name = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const;
const password = { type: 'string', minLength: 1, maxLength: MAX_PASSWORD_LENGTH } as const;
const email = { type: 'string', minLength: 1, maxLength: MAX_USER_EMAIL_LENGTH } as const;
/** Largest figure a cap may be: a plan's quota may be up to 2^53. */
const MAX_FIGURE = Number.MAX_SAFE_INTEGER;

const userSchema = {
  type: 'object',
  required: ['id', 'email', 'created_at', 'operator', 'awaiting_confirmation'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    created_at: time,
    operator: {
      type: 'boolean',
      description:
        'Whether the user is an operator of this server (marked by `mailvet users update ID --operator`): who may read GET /doctor and sees how to change plans.',
    },
    awaiting_confirmation: {
      type: 'boolean',
      description:
        'The account waits for its address to be confirmed (the link emailed at sign-up): until then its unsafe requests are 403 account_unconfirmed.',
    },
  },
} as const;

/** Shared schema `Session`: GET /api/v1/session, sign-in and sign-up. */
export const sessionSchema = {
  $id: 'Session',
  type: 'object',
  required: ['user', 'account', 'csrf_token'],
  properties: {
    user: userSchema,
    account: {
      type: 'object',
      required: ['id', 'name', 'plan'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' } },
    },
    csrf_token: { type: 'string', description: 'Send it as X-CSRF-Token on POST, PATCH, PUT and DELETE.' },
  },
} as const;

/** Shared schema `ApiKey`. */
export const apiKeySchema = {
  $id: 'ApiKey',
  type: 'object',
  required: [
    'id',
    'name',
    'prefix',
    'created_at',
    'last_used_at',
    'revoked_at',
    'rate_limit',
    'monthly_cap',
    'usage',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string', description: 'The first characters of the key, to recognise it by.' },
    created_at: time,
    last_used_at: { ...nullableTime, description: 'Updated at most once a minute.' },
    revoked_at: nullableTime,
    rate_limit: {
      type: ['integer', 'null'],
      description: "The key's own requests per second; null: the account's.",
    },
    monthly_cap: {
      type: ['integer', 'null'],
      description: "The key's own verifications a month; null: the account's.",
    },
    usage: {
      type: 'object',
      required: ['month', 'verifications'],
      properties: { month: { type: 'string' }, verifications: count },
    },
  },
} as const;

/** Shared schema `CreatedApiKey`: the key, shown this once. */
export const createdApiKeySchema = {
  $id: 'CreatedApiKey',
  type: 'object',
  required: [...apiKeySchema.required, 'key'],
  properties: {
    ...apiKeySchema.properties,
    key: { type: 'string', description: 'The API key itself: shown once, never stored.' },
  },
} as const;

/** Shared schema `ApiKeyList`. */
export const apiKeyListSchema = {
  $id: 'ApiKeyList',
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', items: { $ref: 'ApiKey#' } } },
} as const;

/** Shared schema `Account`. */
export const accountSchema = {
  $id: 'Account',
  type: 'object',
  required: ['id', 'name', 'plan', 'retention_days', 'retention_days_setting', 'limits', 'usage', 'key'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    plan: { type: 'string' },
    retention_days: {
      ...count,
      description:
        "Days a finished list's rows and results are kept before they are deleted (the list stays, with its counts): the account's setting, else the server's default (MAILVET_RETENTION_DAYS, 30), never more than the plan's `limits.retention_days`. 0: kept.",
    },
    retention_days_setting: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'What the account set with PATCH /api/v1/account; null: the server default.',
    },
    limits: {
      type: 'object',
      required: [
        'monthly_verifications',
        'monthly_bulk_requests',
        'rate_limit_per_second',
        'max_running_lists',
        'max_stored_rows',
        'max_unfinished_lists',
        'retention_days',
      ],
      properties: {
        monthly_verifications: count,
        monthly_bulk_requests: count,
        rate_limit_per_second: count,
        max_running_lists: count,
        max_stored_rows: count,
        max_unfinished_lists: count,
        retention_days: {
          ...count,
          description:
            "The plan's most days results may be kept (0: no maximum); the account's `retention_days` is at most this.",
        },
      },
    },
    usage: {
      type: 'object',
      required: ['month', 'verifications', 'bulk_requests', 'remaining', 'reset_at'],
      properties: {
        month: { type: 'string', description: 'YYYY-MM, UTC.' },
        verifications: count,
        bulk_requests: count,
        remaining: { ...count, description: 'Verifications left this month (for a key: under its cap too).' },
        reset_at: time,
      },
    },
    key: {
      anyOf: [{ $ref: 'ApiKey#' }, { type: 'null' }],
      description: 'The key the request came with; null with a session.',
    },
  },
} as const;

const statusCounts = {
  type: 'object',
  required: [...STATUS_NAMES],
  properties: Object.fromEntries(STATUS_NAMES.map((status) => [status, count])),
} as const;

/** Shared schema `UsageReport`. */
export const usageReportSchema = {
  $id: 'UsageReport',
  type: 'object',
  required: ['from', 'to', 'days', 'keys'],
  properties: {
    from: day,
    to: day,
    days: {
      type: 'array',
      items: {
        type: 'object',
        required: ['date', 'verifications', 'total', 'bulk_requests', 'list_rows'],
        properties: {
          date: day,
          verifications: statusCounts,
          total: count,
          bulk_requests: count,
          list_rows: count,
        },
      },
    },
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'prefix', 'verifications', 'bulk_requests', 'list_rows'],
        properties: {
          id: { type: ['string', 'null'], description: "null: the dashboard's own use." },
          name: { type: 'string' },
          prefix: { type: ['string', 'null'] },
          verifications: count,
          bulk_requests: count,
          list_rows: count,
        },
      },
    },
  },
} as const;

export const signupBodySchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email, password, account_name: name },
} as const;

export const signinBodySchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: { email, password },
} as const;

export const passwordChangeBodySchema = {
  type: 'object',
  required: ['current_password', 'new_password'],
  properties: { current_password: password, new_password: password },
} as const;

const cap = (min: number, description: string) =>
  ({ type: ['integer', 'null'], minimum: min, maximum: MAX_FIGURE, description }) as const;

export const keyCreateBodySchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { ...name, maxLength: 100 },
    rate_limit: cap(1, "Requests per second, below the account's; null or absent: the account's."),
    monthly_cap: cap(0, "Verifications a month, below the account's; null or absent: the account's."),
  },
} as const;

export const keyPatchBodySchema = {
  type: 'object',
  properties: keyCreateBodySchema.properties,
} as const;

export const usageQuerySchema = {
  type: 'object',
  properties: { from: day, to: day },
} as const;

export const keyIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export interface SignupBody {
  email: string;
  password: string;
  account_name?: string;
}
export interface SigninBody {
  email: string;
  password: string;
}
export interface PasswordChangeBody {
  current_password: string;
  new_password: string;
}
export interface KeyBody {
  name?: string;
  rate_limit?: number | null;
  monthly_cap?: number | null;
}

/** The shared schemas of this file. */
export const accountSchemas = [
  sessionSchema,
  apiKeySchema,
  createdApiKeySchema,
  apiKeyListSchema,
  accountSchema,
  usageReportSchema,
] as const;

/** Body of PATCH /api/v1/account: the account's own settings. */
export const accountPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    retention_days: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 36_500,
      description:
        "Days a finished list's rows and results are kept (0: kept, where the plan has no maximum); null: the server's default. At most the plan's `limits.retention_days`, else 422.",
    },
  },
} as const;

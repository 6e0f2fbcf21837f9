/**
 * Integrations as JSON Schema: connected platforms and their audiences. Credentials
 * appear only in the connect request, never in an answer.
 */

const time = { type: 'string', format: 'date-time' } as const;

/** Shared schema `Integration`. */
export const integrationSchema = {
  $id: 'Integration',
  type: 'object',
  required: ['id', 'provider', 'account_name', 'dc', 'state', 'message', 'created_at'],
  properties: {
    id: { type: 'string' },
    provider: { type: 'string', description: 'The platform: `mailchimp` or `hubspot`.' },
    account_name: { type: 'string', description: "The platform account's name." },
    dc: {
      type: 'string',
      description:
        "The platform account's data centre (Mailchimp: us21…; HubSpot: its data hosting location, na1…).",
    },
    portal_id: {
      type: 'string',
      description: 'HubSpot only: the portal (hub) id. Absent for other platforms.',
    },
    state: {
      type: 'string',
      enum: ['connected', 'disconnected'],
      description: '`disconnected`: the platform refused the credentials (a revoked key); connect again.',
    },
    message: { type: ['string', 'null'], description: 'Why it is disconnected; null when connected.' },
    created_at: time,
  },
} as const;

/** Shared schema `IntegrationList`. */
export const integrationListSchema = {
  $id: 'IntegrationList',
  type: 'object',
  required: ['integrations', 'mailchimp_oauth_url'],
  properties: {
    integrations: { type: 'array', items: { $ref: 'Integration#' } },
    mailchimp_oauth_url: {
      type: ['string', 'null'],
      description:
        'Where a signed-in browser goes to connect Mailchimp by OAuth; null when the operator registered no Mailchimp app.',
    },
    hubspot_oauth_url: {
      type: ['string', 'null'],
      description:
        'Where a signed-in browser goes to connect HubSpot by OAuth; null when the operator registered no HubSpot app.',
    },
  },
} as const;

/** Shared schema `AudienceList`. */
export const audienceListSchema = {
  $id: 'AudienceList',
  type: 'object',
  required: ['audiences'],
  properties: {
    audiences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'member_count', 'last_run'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          member_count: { type: 'integer', minimum: 0 },
          last_run: {
            description: "The audience's latest run; null when it has none.",
            anyOf: [{ $ref: 'Run#' }, { type: 'null' }],
          },
        },
      },
    },
  },
} as const;

/** POST /api/v1/integrations: connect with an API key. */
export const connectBodySchema = {
  type: 'object',
  required: ['provider', 'api_key'],
  additionalProperties: false,
  properties: {
    provider: {
      type: 'string',
      minLength: 1,
      maxLength: 40,
      description: 'The platform: `mailchimp` (another name is a 422 on `provider`).',
    },
    api_key: { type: 'string', minLength: 1, maxLength: 200, description: 'A Mailchimp API key, `…-us21`.' },
  },
} as const;

export interface ConnectBody {
  provider: string;
  api_key: string;
}

export const integrationIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

/** Shared schema `Watch`. */
export const watchSchema = {
  $id: 'Watch',
  type: 'object',
  required: ['id', 'audience_id', 'created_at'],
  properties: { id: { type: 'string' }, audience_id: { type: 'string' }, created_at: time },
} as const;

/** Shared schema `WatchList`. */
export const watchListSchema = {
  $id: 'WatchList',
  type: 'object',
  required: ['watches'],
  properties: { watches: { type: 'array', items: { $ref: 'Watch#' } } },
} as const;

/** POST /api/v1/integrations/{id}/watches. */
export const watchBodySchema = {
  type: 'object',
  required: ['audience_id'],
  additionalProperties: false,
  properties: { audience_id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const watchParams = {
  type: 'object',
  required: ['id', 'watchId'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100 },
    watchId: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

export const integrationSchemas = [
  integrationSchema,
  integrationListSchema,
  audienceListSchema,
  watchSchema,
  watchListSchema,
] as const;

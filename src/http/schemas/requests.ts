/**
 * Request body schemas: they validate requests (Ajv, through Fastify) and describe
 * them in the OpenAPI document. The body is known to be a JSON object before these run.
 */

/** Longest address accepted, in characters. */
export const MAX_ADDRESS_LENGTH = 1024;
/** Most entries in one bulk request. */
export const MAX_BULK_ENTRIES = 100;

/**
 * One submitted address: a string with something other than white space, of at most 1024
 * characters. Anything that passes is verified: a malformed address is a 200 with INVALID_SYNTAX.
 */
export const addressValueSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_ADDRESS_LENGTH,
  // All white space counts as empty: the address is trimmed before anything else.
  pattern: '\\S',
  description: `An email address, at most ${MAX_ADDRESS_LENGTH} characters; trimmed before verification.`,
  examples: ['jane.doe@example.com'],
} as const;

/** POST /api/v1/verify. Unknown properties are ignored. */
export const verifyBodySchema = {
  type: 'object',
  required: ['email'],
  properties: { email: addressValueSchema },
} as const;

/** POST /api/v1/verify/bulk. Unknown properties are ignored. */
export const bulkBodySchema = {
  type: 'object',
  required: ['emails'],
  properties: {
    emails: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BULK_ENTRIES,
      items: addressValueSchema,
      description: `1 to ${MAX_BULK_ENTRIES} addresses; results come back in this order.`,
    },
  },
} as const;

export interface VerifyBody {
  email: string;
}

export interface BulkBody {
  emails: string[];
}

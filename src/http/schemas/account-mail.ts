/**
 * Account mail's requests as JSON Schema: confirming an address, asking for a password reset and
 * setting the new password, and what the signed-out pages may offer.
 */
import { MAX_PASSWORD_LENGTH } from '../../accounts/passwords.ts';
import { MAX_USER_EMAIL_LENGTH } from '../../accounts/users.ts';

const token = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'The token of the emailed link (its `token` query parameter).',
} as const;

export const confirmBodySchema = {
  type: 'object',
  required: ['token'],
  properties: { token },
} as const;

export const resetRequestBodySchema = {
  type: 'object',
  required: ['email'],
  properties: { email: { type: 'string', minLength: 1, maxLength: MAX_USER_EMAIL_LENGTH } },
} as const;

export const resetBodySchema = {
  type: 'object',
  required: ['token', 'password'],
  properties: { token, password: { type: 'string', minLength: 1, maxLength: MAX_PASSWORD_LENGTH } },
} as const;

/** GET /api/v1/session/settings. */
export const sessionSettingsSchema = {
  type: 'object',
  required: ['signup', 'password_reset'],
  properties: {
    signup: { type: 'string', enum: ['open', 'closed'], description: 'MAILVET_SIGNUP.' },
    password_reset: {
      type: 'boolean',
      description: 'Whether this server emails password-reset links (it has a mail relay).',
    },
  },
} as const;

export interface ConfirmBody {
  token: string;
}
export interface ResetRequestBody {
  email: string;
}
export interface ResetBody {
  token: string;
  password: string;
}

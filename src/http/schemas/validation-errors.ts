/**
 * Turns Ajv's validation errors into the API's `errors: [{field, message}]`: `field`
 * is `email`, `emails` or `emails[3]`; a bad address value reads "Invalid email format", and one
 * that is no string at all "Must be a string" (`{"email": 42}` is a mistake in the caller's code,
 * not in the address).
 */
import type { FastifySchemaValidationError } from 'fastify';
import { MAX_BULK_ENTRIES } from './requests.ts';

/** One field at fault in a request body. */
export interface FieldError {
  field: string;
  message: string;
}

// JSON pointers of address values: `/email`, `/emails/3`, `/events/3/email`.
const ADDRESS_VALUE = /^\/(?:email|emails\/\d+|events\/\d+\/email)$/;

const LIST_MESSAGES: Record<string, string> = {
  type: `Must be an array of 1 to ${MAX_BULK_ENTRIES} email addresses`,
  minItems: 'Must hold at least 1 email address',
  maxItems: `Must hold at most ${MAX_BULK_ENTRIES} email addresses`,
};

/** The fields at fault, one entry per field, in Ajv's order. */
export function fieldErrorsOf(errors: readonly FastifySchemaValidationError[]): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const error of errors) {
    const fieldError = fieldErrorOf(error);
    if (!byField.has(fieldError.field)) byField.set(fieldError.field, fieldError);
  }
  return [...byField.values()];
}

function fieldErrorOf(error: FastifySchemaValidationError): FieldError {
  const missing = error.keyword === 'required' ? error.params.missingProperty : undefined;
  const extra = error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined;
  const named = typeof missing === 'string' ? missing : typeof extra === 'string' ? extra : undefined;
  const pointer = named === undefined ? error.instancePath : `${error.instancePath}/${named}`;
  const field = fieldName(pointer);
  if (typeof missing === 'string') return { field, message: 'Required' };
  if (typeof extra === 'string') return { field, message: 'Not a known field' };
  if (ADDRESS_VALUE.test(pointer))
    return { field, message: error.keyword === 'type' ? 'Must be a string' : 'Invalid email format' };
  if (pointer === '/emails') return { field, message: LIST_MESSAGES[error.keyword] ?? 'Invalid value' };
  return { field, message: plainMessage(error) };
}

/**
 * The validator's finding in plain words: its own text ("must match pattern \"^[0-9]{1,3}$\"")
 * speaks of schemas, not of what the caller should send.
 */
function plainMessage(error: FastifySchemaValidationError): string {
  const { params } = error;
  const limit = params.limit;
  switch (error.keyword) {
    case 'type':
      return `Must be ${TYPE_WORDS[String(params.type)] ?? 'of another type'}`;
    case 'enum':
      return Array.isArray(params.allowedValues)
        ? `Must be one of: ${params.allowedValues.map((value) => String(value)).join(', ')}`
        : 'Not one of the allowed values';
    case 'minLength':
      return `Must be at least ${limit} character${limit === 1 ? '' : 's'} long`;
    case 'maxLength':
      return `Must be at most ${limit} characters long`;
    case 'minimum':
      return `Must be at least ${limit}`;
    case 'maximum':
      return `Must be at most ${limit}`;
    case 'minItems':
      return `Must have at least ${limit} item${limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `Must have at most ${limit} items`;
    case 'uniqueItems':
      return 'Must not repeat a value';
    case 'pattern':
      return 'Is not in the expected format';
    case 'format':
      return `Must be ${FORMAT_WORDS[String(params.format)] ?? 'in the expected format'}`;
    default:
      return 'Invalid value';
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
  'object,null': 'an object or null',
  'string,null': 'a string or null',
  'integer,null': 'a whole number or null',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time (ISO 8601)',
  email: 'an email address',
  uri: 'a URL',
};

/** `/emails/3` → `emails[3]`, `/a/b` → `a.b` (JSON pointer escapes undone). */
export function fieldName(pointer: string): string {
  let name = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(segment)) name += `[${segment}]`;
    else name += name === '' ? segment : `.${segment}`;
  }
  return name === '' ? 'body' : name;
}

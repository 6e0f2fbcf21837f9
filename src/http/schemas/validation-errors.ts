/**
 * Turns Ajv's validation errors into the API's `errors: [{field, message}]` (DESIGN §1): `field`
 * is `email`, `emails` or `emails[3]`; a bad address value reads "Invalid email format".
 */
import type { FastifySchemaValidationError } from 'fastify';
import { MAX_BULK_ENTRIES } from './requests.ts';

/** One field at fault in a request body. */
export interface FieldError {
  field: string;
  message: string;
}

// JSON pointers of address values: `/email`, `/emails/3`.
const ADDRESS_VALUE = /^\/(?:email|emails\/\d+)$/;

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
  const pointer = typeof missing === 'string' ? `${error.instancePath}/${missing}` : error.instancePath;
  const field = fieldName(pointer);
  if (typeof missing === 'string') return { field, message: 'Required' };
  if (ADDRESS_VALUE.test(pointer)) return { field, message: 'Invalid email format' };
  if (pointer === '/emails') return { field, message: LIST_MESSAGES[error.keyword] ?? 'Invalid value' };
  return { field, message: error.message ?? 'Invalid value' };
}

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

/**
 * Opaque page cursors: the last item's creation time and id, newest-first pages continue after
 * them. A cursor that is not ours is a 422 on its query parameter, never a 500.
 */
import { validationFailed } from './errors.ts';

export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id };
  } catch {
    // Falls through to the validation error: a cursor is opaque, and this one was not ours.
  }
  throw validationFailed([{ field: 'cursor', message: 'Not a cursor from a previous page' }]);
}

/** `?limit=` of a paged route: 1 to 100, `fallback` when absent. */
export function pageLimit(value: string | undefined, fallback = 20): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
    throw validationFailed([{ field: 'limit', message: 'Must be an integer from 1 to 100' }]);
  }
  return limit;
}

/** The query string of a paged route. */
export function pageQuerySchema(items: string) {
  return {
    type: 'object',
    properties: {
      limit: {
        type: 'string',
        pattern: '^[0-9]{1,3}$',
        description: `${items} per page, 1 to 100 (default 20).`,
      },
      cursor: { type: 'string', maxLength: 200, description: '`next_cursor` of the previous page.' },
    },
  } as const;
}

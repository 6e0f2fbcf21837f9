/**
 * The `{id}` path parameter of the list routes.
 */

/** `{id}`: a list id as `POST /lists` made it. */
export const listIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, description: 'The list id.' } },
} as const;

export interface ListIdParams {
  id: string;
}

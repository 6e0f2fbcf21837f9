/**
 * What the emulator's routes share: the request and context types, the route table's entry, and
 * HubSpot's paging, limits and contact shape.
 */
import { invalid } from './errors.ts';
import type { Contact, Portal, Token } from './state.ts';

export interface RouteRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface RouteContext {
  portal: Portal;
  token: Token;
  /** The emulator's clock (tests move it). */
  now: () => Date;
}

export type Handler = (ctx: RouteContext, request: RouteRequest, params: string[]) => unknown;
export interface Route {
  method: string;
  pattern: RegExp;
  scope: string | null;
  handler: Handler;
}

export const route = (method: string, pattern: RegExp, scope: string | null, handler: Handler): Route => ({
  method,
  pattern,
  scope,
  handler,
});

export function contactView(contact: Contact, properties: string[]) {
  const shown: Record<string, string | null> = {
    createdate: contact.properties.createdate ?? null,
    hs_object_id: contact.id,
    lastmodifieddate: contact.properties.lastmodifieddate ?? null,
  };
  for (const name of properties) shown[name] = contact.properties[name] ?? null;
  return {
    id: contact.id,
    properties: shown,
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
    archived: contact.archived,
  };
}

export function limitOf(value: string | null | undefined | number, fallback: number, max: number): number {
  const limit = value === null || value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1) throw invalid(`limit must be a positive integer`);
  if (limit > max) throw invalid(`limit must be at most ${max}`);
  return limit;
}

export function page<T>(items: T[], after: string | null | undefined, limit: number) {
  const start = after ? Number(after) : 0;
  if (!Number.isInteger(start) || start < 0) throw invalid('after must be a cursor from a previous page');
  const slice = items.slice(start, start + limit);
  const next = start + limit < items.length ? String(start + limit) : null;
  return { slice, paging: next === null ? undefined : { next: { after: next, link: `?after=${next}` } } };
}

export function liveContacts(portal: Portal): Contact[] {
  return [...portal.contacts.values()].filter((contact) => !contact.archived);
}

export function inputsOf(body: unknown, max = 100): Array<Record<string, unknown>> {
  const inputs = (body as { inputs?: unknown })?.inputs;
  if (!Array.isArray(inputs)) throw invalid('inputs is required');
  if (inputs.length > max)
    throw invalid(`Batch input size is larger than ${max}`, { subCategory: 'BATCH_INPUT_TOO_LARGE' });
  return inputs as Array<Record<string, unknown>>;
}

/**
 * What every route shares: the request and result shapes (the same for HTTP requests and for batch
 * operations run in-process), a small path router, collection paging and the `fields` /
 * `exclude_fields` projection (comma-separated dot paths, arrays traversed).
 */
import { invalid, McProblem } from './problems.ts';
import type { Account, World } from './state.ts';

export interface ApiRequest {
  method: string;
  /** The path after `/3.0`, starting with `/`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface ApiResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiContext {
  world: World;
  account: Account;
  via: 'api' | 'batch';
  /** Outbound effects after the answer (webhook deliveries), awaited by nobody. */
  later(task: () => Promise<void>): void;
}

export type Params = Record<string, string>;
export type RouteHandler = (
  ctx: ApiContext,
  request: ApiRequest,
  params: Params,
) => ApiResult | Promise<ApiResult>;

export interface Route {
  method: string;
  pattern: string;
  handler: RouteHandler;
}

export interface RouteMatch {
  route: Route;
  params: Params;
}

/** Finds the route of `method path`; `allowed` lists the methods of a path whose method did not match. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): RouteMatch | { allowed: string[] } | undefined {
  const parts = splitPath(path);
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(splitPath(route.pattern), parts);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { allowed } : undefined;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((part) => part !== '');
}

function matchPattern(pattern: string[], parts: string[]): Params | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Params = {};
  for (const [index, piece] of pattern.entries()) {
    const part = parts[index] ?? '';
    if (piece.startsWith('{')) params[piece.slice(1, -1)] = decodeURIComponent(part);
    else if (piece !== part) return undefined;
  }
  return params;
}

/** `count` (default 10, at most 1000) and `offset` (default 0) of a collection request. */
export function paging(query: URLSearchParams): { count: number; offset: number } {
  const count = integerParam(query, 'count', 10);
  const offset = integerParam(query, 'offset', 0);
  if (count > 1000) throw invalid([{ field: 'count', message: 'The maximum value for count is 1000.' }]);
  return { count, offset };
}

function integerParam(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw invalid([{ field: name, message: `${name} must be a non-negative integer.` }]);
  }
  return value;
}

/** One page of `items` (already filtered) as `{[key]: page, total_items, ...extra}`. */
export function collection<T>(
  query: URLSearchParams,
  key: string,
  items: readonly T[],
  view: (item: T) => unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const { count, offset } = paging(query);
  return { [key]: items.slice(offset, offset + count).map(view), ...extra, total_items: items.length };
}

/** Applies `fields` then `exclude_fields` to a response body. */
export function project(body: unknown, query: URLSearchParams): unknown {
  const fields = dotPaths(query.get('fields'));
  const excluded = dotPaths(query.get('exclude_fields'));
  let result = body;
  if (fields.length > 0) result = keep(result, fields);
  if (excluded.length > 0) result = drop(result, excluded);
  return result;
}

function dotPaths(raw: string | null): string[][] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '')
    .map((path) => path.split('.'));
}

function keep(value: unknown, paths: string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => keep(item, paths));
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const wanted = paths.filter((path) => path[0] === key);
    if (wanted.length === 0) continue;
    result[key] = wanted.some((path) => path.length === 1)
      ? child
      : keep(
          child,
          wanted.map((path) => path.slice(1)),
        );
  }
  return result;
}

function drop(value: unknown, paths: string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => drop(item, paths));
  if (!isObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const matching = paths.filter((path) => path[0] === key);
    if (matching.some((path) => path.length === 1)) continue;
    result[key] =
      matching.length === 0
        ? child
        : drop(
            child,
            matching.map((path) => path.slice(1)),
          );
  }
  return result;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request body as an object, or 400 when it is missing or not an object. */
export function objectBody(request: ApiRequest): Record<string, unknown> {
  if (!isObject(request.body)) {
    throw new McProblem('invalidResource', undefined, [
      { field: '', message: 'Schema describes object, NULL found instead' },
    ]);
  }
  return request.body;
}

/** An ISO 8601 query parameter as a Date, or undefined when absent; 400 when unparseable. */
export function dateParam(query: URLSearchParams, name: string): Date | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) {
    throw invalid([
      { field: name, message: `${name} must be an ISO 8601 date, e.g. 2015-10-21T15:41:36+00:00.` },
    ]);
  }
  return date;
}

export function ok(body: unknown): ApiResult {
  return { status: 200, body };
}

export const NO_CONTENT: ApiResult = { status: 204 };

/**
 * The emulator's API routes, checked against the token's scopes: contacts (`contacts.ts`), lists
 * (`lists.ts`), account info, communication preferences and marketing emails (`marketing.ts`).
 * Shapes follow HubSpot's reference pages; limits are the documented ones (100 records a batch or
 * a page, 200 a search page, 10,000 search results, 250 list memberships a page).
 */

import { CONTACT_ROUTES } from './contacts.ts';
import { missingScopes, notFound } from './errors.ts';
import { LIST_ROUTES } from './lists.ts';
import { MARKETING_ROUTES } from './marketing.ts';
import type { RouteContext, RouteRequest } from './route-kit.ts';

export type { RouteContext, RouteRequest } from './route-kit.ts';

const ROUTES = [...MARKETING_ROUTES, ...CONTACT_ROUTES, ...LIST_ROUTES];

function need(ctx: RouteContext, scope: string | null): void {
  if (scope !== null && !ctx.token.scopes.includes(scope)) throw missingScopes([scope]);
}

/** The route for a request; a scope the token lacks is HubSpot's 403. */
export function dispatch(ctx: RouteContext, request: RouteRequest): { status: number; body: unknown } {
  for (const candidate of ROUTES) {
    if (candidate.method !== request.method) continue;
    const match = candidate.pattern.exec(request.path);
    if (match === null) continue;
    need(ctx, candidate.scope);
    const answer = candidate.handler(ctx, request, match.slice(1)) as { status?: number; body?: unknown };
    if (
      answer !== null &&
      typeof answer === 'object' &&
      typeof answer.status === 'number' &&
      'body' in answer
    )
      return { status: answer.status, body: answer.body };
    return { status: 200, body: answer };
  }
  throw notFound(`${request.method} ${request.path} is not a route of this emulator`);
}

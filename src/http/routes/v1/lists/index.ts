/**
 * The list-job routes, in a context of their own: uploads are streamed, so this
 * context replaces Fastify's buffering body parsers with ones that hand the route the raw stream
 * (JSON and CSV) or a multipart reader, and it has no JSON-object check. Auth and the rate limit
 * come from the parent context.
 */
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsync } from 'fastify';
import type { ListService } from '../../../../lists/list-service.ts';
import { badRequest } from '../../../errors.ts';
import { listActionRoutes } from './actions.ts';
import { type ListCreateDeps, listCreateRoute } from './create.ts';
import { listReadRoutes } from './read.ts';
import { listResultsRoute } from './results.ts';
import { listRowsRoute } from './rows.ts';

export interface ListRoutesDeps extends Omit<ListCreateDeps, 'lists'> {
  lists: ListService;
}

/** Content types an upload may have. */
export const UPLOAD_CONTENT_TYPES = ['application/json', 'text/csv', 'multipart/form-data'] as const;

/** Registers the list routes. */
export const listRoutes: FastifyPluginAsync<ListRoutesDeps> = async (app, deps) => {
  app.removeAllContentTypeParsers();
  // The stream itself is the body: the route reads it as it arrives, bounded by its own limits.
  app.addContentTypeParser(['application/json', 'text/csv', 'application/csv'], (_request, payload, done) =>
    done(null, payload),
  );
  // Forms are read by @fastify/multipart, as they arrive, when the route asks for their parts.
  await app.register(fastifyMultipart);
  app.addContentTypeParser('*', (_request, _payload, done) =>
    done(badRequest(`Content-Type must be one of: ${UPLOAD_CONTENT_TYPES.join(', ')}`), undefined),
  );
  await app.register(listCreateRoute, {
    lists: deps.lists,
    secretKey: deps.secretKey,
    maxRows: deps.maxRows,
    uploadIdleTimeoutMs: deps.uploadIdleTimeoutMs,
    uploadTimeoutMs: deps.uploadTimeoutMs,
  });
  await app.register(listReadRoutes, { lists: deps.lists });
  await app.register(listActionRoutes, { lists: deps.lists });
  await app.register(listResultsRoute, { lists: deps.lists });
  await app.register(listRowsRoute, { lists: deps.lists });
};

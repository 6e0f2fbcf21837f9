/**
 * The body-format check that Fastify's parser leaves to us: the body must be a JSON object (not an
 * array, string, number or null, and not absent). Runs before schema validation, so a wrong shape
 * is a 400, never a 422.
 */

import fp from 'fastify-plugin';
import { type ApiError, badRequest } from '../errors.ts';

/** Adds the JSON-object check (preValidation) to the registering context. */
export const jsonBodyPlugin = fp(async (app) => {
  // A callback hook: every request passes it, and an async one costs each a promise and a turn.
  app.addHook('preValidation', (request, _reply, done) => {
    done(jsonObjectRefusal(request.body, request.headers['content-type']));
  });
});

/** Why a parsed body is not a JSON object, as the 400 to answer; undefined when it is one. */
function jsonObjectRefusal(body: unknown, contentType: string | undefined): ApiError | undefined {
  // Every well-formed request: a parsed JSON object (a string body is Fastify's text/plain).
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return undefined;
  // Fastify reads text/plain as a string: a JSON body sent with the wrong type is told so.
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (typeof body === 'string' && type !== '' && type !== 'application/json') {
    return badRequest(`Content-Type must be application/json, not ${type.slice(0, 100)}`);
  }
  if (body === undefined) return badRequest('The request body is empty: send a JSON object');
  return badRequest('The request body must be a JSON object');
}

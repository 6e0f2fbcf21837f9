/**
 * The body-format check that Fastify's parser leaves to us: the body must be a JSON object (not an
 * array, string, number or null, and not absent). Runs before schema validation, so a wrong shape
 * is a 400, never a 422.
 */

import fp from 'fastify-plugin';
import { badRequest } from '../errors.ts';

/** Adds the JSON-object check (preValidation) to the registering context. */
export const jsonBodyPlugin = fp(async (app) => {
  app.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    // Every well-formed request: a parsed JSON object (a string body is Fastify's text/plain).
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return;
    // Fastify reads text/plain as a string: a JSON body sent with the wrong type is told so.
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (typeof body === 'string' && type !== '' && type !== 'application/json') {
      throw badRequest(`Content-Type must be application/json, not ${type.slice(0, 100)}`);
    }
    if (body === undefined) throw badRequest('The request body is empty: send a JSON object');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('The request body must be a JSON object');
    }
  });
});

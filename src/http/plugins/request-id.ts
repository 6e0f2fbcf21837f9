/**
 * Request ids: a sane incoming `X-Request-Id` is kept (so a proxy's id follows the request
 * through our logs), anything else is replaced by a fresh UUID. Every response carries it (response-headers.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fastify's `genReqId`: the incoming id when it is sane, else a new UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

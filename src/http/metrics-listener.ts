/**
 * MAILVET_METRICS_PORT: `/metrics` on a listener of its own, so Prometheus can scrape a process
 * (an API one or a `mailvet worker`) on a port the public never reaches. It serves that one path;
 * with MAILVET_METRICS_TOKEN set it asks for the token there too. Plain Node HTTP: no routing,
 * schemas or plugins are needed for one GET.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsExposition } from '../observability/ports.ts';
import { type ApiError, errorBody, notFound, unauthorized } from './errors.ts';
import { metricsTokenMatches } from './plugins/metrics.ts';

/** A listening metrics endpoint. */
export interface MetricsListener {
  /** `http://host:port/metrics` (the real port when 0 was asked). */
  url: string;
  close(): Promise<void>;
}

/** Where and how to serve. */
export interface MetricsListenerOptions {
  host: string;
  port: number;
  /** Asked for as `Authorization: Bearer <token>` when set. */
  token?: string;
}

/** Serves `exposition` at `/metrics` on host:port; resolves once it listens. */
export async function listenForMetrics(
  exposition: MetricsExposition,
  options: MetricsListenerOptions,
  onError: (error: unknown) => void = () => {},
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    answer(exposition, options.token, request, response).catch((error: unknown) => {
      onError(error);
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  // Scrapes are short: no idle socket is kept for long.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { url: `${urlOf(server)}/metrics`, close: () => closeServer(server) };
}

async function answer(
  exposition: MetricsExposition,
  token: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const method = request.method ?? 'GET';
  const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
  if (path !== '/metrics' || (method !== 'GET' && method !== 'HEAD')) {
    return sendError(response, notFound(method, path.length > 200 ? `${path.slice(0, 200)}…` : path));
  }
  if (token !== undefined && !metricsTokenMatches(token, request.headers.authorization)) {
    return sendError(response, unauthorized(request.headers.authorization !== undefined));
  }
  const text = await exposition.scrape();
  response.writeHead(200, {
    'content-type': exposition.contentType,
    'content-length': Buffer.byteLength(text),
  });
  response.end(method === 'HEAD' ? undefined : text);
}

function sendError(response: ServerResponse, error: ApiError): void {
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(error, requestId));
  response.writeHead(error.statusCode, {
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  });
  response.end(body);
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

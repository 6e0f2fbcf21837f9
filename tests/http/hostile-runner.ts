/**
 * Sends hostile cases (through `inject()` or a raw socket), checks each answer against its
 * expectation and keeps the usage ledger: what the key must have been charged for the 200s seen.
 */
import type { FastifyInstance } from 'fastify';
import { addressKey } from '../../src/usage/verification-service.ts';
import { preview, responseProblems, type SeenResponse } from './hostile-checks.ts';
import type { HostileCase } from './hostile-generators.ts';
import { alsoAllow } from './hostile-oracle.ts';
import { rawExchange, requestBytes } from './hostile-raw-http.ts';

/** What the 200s seen must have cost the key (per unique address, dns_error given back). */
export interface UsageLedger {
  verifications: number;
  bulkRequests: number;
}

export interface RunTarget {
  /** Send through `inject()`… */
  app?: FastifyInstance;
  /** …or over a raw socket to 127.0.0.1:port. */
  port?: number;
  keys: { key: string; revoked: string };
  ledger: UsageLedger;
}

/** Requests in flight at once: some concurrency, still a readable failure order. */
const BATCH = 16;
const SOCKET_DEADLINE_MS = 10_000;
// Control characters make Node's HTTP parser refuse the request before Fastify sees it (400).
const WIRE_INVALID = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Runs the cases; returns one readable description per failing case. */
export async function runCases(
  label: string,
  cases: readonly HostileCase[],
  target: RunTarget,
): Promise<string[]> {
  const failures: string[] = [];
  for (let start = 0; start < cases.length; start += BATCH) {
    await Promise.all(
      cases.slice(start, start + BATCH).map(async (hostile) => {
        const headers = requestHeaders(hostile, target.keys);
        let response: SeenResponse;
        let expectation = hostile.expect;
        try {
          if (target.app !== undefined) response = await viaInject(target.app, hostile, headers);
          else {
            if (Object.values(headers).some((value) => WIRE_INVALID.test(value)))
              expectation = alsoAllow(expectation, 400);
            response = await viaSocket(target.port as number, hostile, headers);
          }
        } catch (error) {
          failures.push(describeFailure(label, hostile, headers, undefined, [(error as Error).message]));
          return;
        }
        const problems = responseProblems(hostile.endpoint, hostile.method, expectation, response);
        if (problems.length > 0) failures.push(describeFailure(label, hostile, headers, response, problems));
        if (response.status === 200 && hostile.method === 'POST') charge(target.ledger, response.body);
      }),
    );
  }
  return failures;
}

/** The headers a case sends, with the test keys put in place of `{key}`, `{short}`, `{revoked}`. */
export function requestHeaders(hostile: HostileCase, keys: RunTarget['keys']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (hostile.contentType !== undefined) headers['content-type'] = hostile.contentType;
  if (hostile.auth.kind === 'valid') headers.authorization = `Bearer ${keys.key}`;
  if (hostile.auth.kind === 'header') {
    headers.authorization = hostile.auth.template
      .replaceAll('{key}', keys.key)
      .replaceAll('{short}', keys.key.slice(0, -1))
      .replaceAll('{revoked}', keys.revoked);
  }
  return headers;
}

async function viaInject(
  app: FastifyInstance,
  hostile: HostileCase,
  headers: Record<string, string>,
): Promise<SeenResponse> {
  const response = await app.inject({
    method: hostile.method as 'POST',
    url: hostile.url,
    headers,
    ...(hostile.body === undefined ? {} : { payload: hostile.body }),
  });
  const seen: SeenResponse['headers'] = {};
  for (const [name, value] of Object.entries(response.headers))
    seen[name] = typeof value === 'number' ? String(value) : value;
  return { status: response.statusCode, headers: seen, body: response.body };
}

async function viaSocket(
  port: number,
  hostile: HostileCase,
  headers: Record<string, string>,
): Promise<SeenResponse> {
  const wire = { ...headers };
  if (hostile.body !== undefined) wire['content-length'] = String(hostile.body.length);
  // Header values travel as bytes: anything beyond Latin-1 arrives as its UTF-8 bytes.
  for (const [name, value] of Object.entries(wire))
    wire[name] = Buffer.from(value, 'utf8').toString('latin1');
  const exchange = await rawExchange(port, [requestBytes(hostile.method, hostile.url, wire, hostile.body)], {
    deadlineMs: SOCKET_DEADLINE_MS,
    head: hostile.method === 'HEAD',
  });
  if (exchange.timedOut) throw new Error(`no answer within ${SOCKET_DEADLINE_MS} ms`);
  if (exchange.response === undefined) throw new Error('connection closed without a response');
  return exchange.response;
}

/** Adds what a 200 must have cost: one unit per unique address, none for dns_error results. */
function charge(ledger: UsageLedger, body: string): void {
  let parsed: { results?: Array<{ email: string; reason: string }>; reason?: string; checks?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    return;
  }
  if (Array.isArray(parsed.results)) {
    ledger.bulkRequests += 1;
    const charged = new Set(
      parsed.results.filter((r) => r.reason !== 'dns_error').map((r) => addressKey(r.email)),
    );
    ledger.verifications += charged.size;
  } else if (parsed.checks !== undefined && parsed.reason !== 'dns_error') {
    ledger.verifications += 1;
  }
}

function describeFailure(
  label: string,
  hostile: HostileCase,
  headers: Record<string, string>,
  response: SeenResponse | undefined,
  problems: string[],
): string {
  const body = hostile.body;
  const text = body === undefined ? '(none)' : body.toString('utf8');
  const shown =
    body === undefined
      ? text
      : Buffer.from(text, 'utf8').equals(body)
        ? preview(text, 200)
        : `hex ${body.subarray(0, 100).toString('hex')}`;
  return [
    `[${label}] case #${hostile.id} ${hostile.kind}: ${hostile.method} ${hostile.url.slice(0, 120)}`,
    `  headers ${preview(JSON.stringify(headers), 300)}`,
    `  body ${body?.length ?? 0} bytes: ${shown}`,
    `  expected ${hostile.expect.statuses.join('/')}, got ${response === undefined ? 'nothing' : `${response.status} ${preview(response.body, 300)}`}`,
    `  problems: ${problems.join('; ')}`,
  ].join('\n');
}

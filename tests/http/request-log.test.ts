/**
 * The request log: exactly one JSON line per request, written at completion, with the request id,
 * the account (when authenticated), method, route pattern, status and response time; never the
 * API key or an email address; none at all above info (MAILVET_LOG_LEVEL=warn).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';
import { REQUEST_LINE, requestLine } from '../../src/http/plugins/request-log.ts';
import { testApp } from '../helpers/app.ts';
import { LogCapture } from './log-capture.ts';

const VERIFY = '/api/v1/verify';

interface RequestLine {
  level: number;
  msg: string;
  reqId: string;
  accountId?: string;
  method: string;
  route: string;
  statusCode: number;
  responseTimeMs: number;
  code?: string;
}

function requestLines(logs: LogCapture): RequestLine[] {
  return logs.entries().filter((entry) => entry.msg === REQUEST_LINE) as unknown as RequestLine[];
}

describe('one line per request', () => {
  test('each request, answered or refused, has exactly one line with its fields', async () => {
    const logs = new LogCapture();
    const t = await testApp({ rate: 1000, logger: { level: 'info', stream: logs } });
    try {
      const address = 'private.person@multi-mx.test';
      const requests = [
        { method: 'POST', url: VERIFY, headers: t.auth(), payload: { email: address } },
        { method: 'POST', url: VERIFY, headers: t.auth(), payload: '{"email": "broken', type: 'json' },
        {
          method: 'POST',
          url: VERIFY,
          headers: { authorization: `Bearer ${t.key}x` },
          payload: { email: address },
        },
        { method: 'GET', url: `/api/v1/lists/0195b5b0-aaaa-7bbb-8ccc-0123456789ab`, headers: t.auth() },
        { method: 'GET', url: '/api/v1/nothing/here?email=private.person@multi-mx.test' },
        { method: 'GET', url: '/api/v1/openapi.json' },
      ] as const;
      const expected = [
        { statusCode: 200, route: VERIFY, account: true, code: undefined },
        { statusCode: 400, route: VERIFY, account: true, code: 'bad_request' },
        { statusCode: 401, route: VERIFY, account: false, code: 'unauthorized' },
        { statusCode: 404, route: '/api/v1/lists/:id', account: true, code: 'not_found' },
        { statusCode: 404, route: 'unmatched', account: false, code: undefined },
        { statusCode: 200, route: '/api/v1/openapi.json', account: false, code: undefined },
      ];
      const ids: string[] = [];
      for (const request of requests) {
        const response = await t.app.inject({
          method: request.method,
          url: request.url,
          headers: { ...('headers' in request && request.headers), 'content-type': 'application/json' },
          ...('payload' in request && {
            payload: typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload),
          }),
        });
        ids.push(String(response.headers['x-request-id']));
      }
      const lines = requestLines(logs);
      assert.equal(lines.length, requests.length, 'one line per request, no more');
      expected.forEach((want, i) => {
        const mine = lines.filter((line) => line.reqId === ids[i]);
        assert.equal(mine.length, 1, `exactly one line for request ${i}`);
        const line = mine[0]!;
        assert.equal(line.level, 30, 'info');
        assert.equal(line.method, requests[i]!.method);
        assert.equal(line.route, want.route);
        assert.equal(line.statusCode, want.statusCode);
        assert.equal(typeof line.responseTimeMs, 'number');
        assert.ok(line.responseTimeMs >= 0);
        assert.equal(line.accountId, want.account ? t.keyRecord.accountId : undefined);
        assert.equal(line.code, want.code);
      });
      // Fastify's own lines are off: no "incoming request", no second line per request.
      assert.equal(
        logs.entries().some((entry) => entry.msg === 'incoming request'),
        false,
      );
      // Every info-or-above line of these requests is its request line (nothing else at info).
      const infoOrAbove = logs.entries().filter((entry) => (entry.level as number) >= 30);
      assert.equal(infoOrAbove.length, requests.length);
      // The orchestrator's probes, every few seconds, log at warn only: no line.
      await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(requestLines(logs).length, requests.length);
      for (const secret of [t.key, t.keyRecord.keyHash, 'private.person', `${t.key}x`]) {
        assert.equal(logs.text.includes(secret), false, 'neither the key nor the address is logged');
      }
    } finally {
      await t.close();
    }
  });

  test('above info (warn), no request line is written', async () => {
    const logs = new LogCapture();
    const t = await testApp({ rate: 1000, logger: { level: 'warn', stream: logs } });
    try {
      const response = await t.app.inject({
        method: 'POST',
        url: VERIFY,
        headers: t.auth(),
        payload: { email: 'jane@multi-mx.test' },
      });
      assert.equal(response.statusCode, 200);
      await t.app.inject({ method: 'GET', url: '/nope' });
      assert.equal(requestLines(logs).length, 0);
    } finally {
      await t.close();
    }
  });

  test('MAILVET_LOG_LEVEL sets the process logger’s level (info by default)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-log-level-'));
    try {
      for (const [env, level] of [
        [{}, 'info'],
        [{ MAILVET_LOG_LEVEL: 'warn' }, 'warn'],
        [{ MAILVET_LOG_LEVEL: 'silent' }, 'silent'],
      ] as const) {
        const services = await createServices(
          loadConfig({ MAILVET_DATA_DIR: dataDir, MAILVET_SMTP_PROBE: 'false', ...env }),
        );
        try {
          assert.equal(services.log.level, level);
        } finally {
          await services.close();
        }
      }
      assert.throws(() => loadConfig({ MAILVET_LOG_LEVEL: 'loud' }), /MAILVET_LOG_LEVEL/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('the line is the one pino would write, byte for byte but the time', () => {
    const logs = new LogCapture();
    const log = createLogger({ level: 'info', stream: logs });
    const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym]!;
    for (const [caller, code] of [
      [{ accountId: 'acc-"1"' }, undefined],
      [null, 'rate_limited'],
    ] as const) {
      const request = {
        id: 'req-\\1',
        method: 'POST',
        caller,
        routeOptions: { url: '/api/v1/verify' },
      } as unknown as FastifyRequest;
      const reply = { statusCode: 429, elapsedTime: 1.23456 } as unknown as FastifyReply;
      const ours = requestLine(request, reply, bindings, code);
      log.info(
        {
          reqId: request.id,
          ...(caller !== null && { accountId: caller.accountId }),
          method: 'POST',
          route: '/api/v1/verify',
          statusCode: 429,
          responseTimeMs: 1.23,
          ...(code !== undefined && { code }),
        },
        REQUEST_LINE,
      );
      const untimed = (line: string) => line.replace(/"time":\d+/, '"time":0');
      assert.equal(untimed(ours), untimed(logs.lines.at(-1)!));
    }
  });
});

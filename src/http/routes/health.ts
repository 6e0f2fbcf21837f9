/**
 * GET /healthz (liveness: the process answers) and GET /readyz (readiness: the store answers; Redis,
 * in scale-out, is reported but never makes the process unready, since requests are still served
 * from the in-memory fallback while it is down). No auth; logged only at warn so probes do not
 * flood the logs.
 */
import type { FastifyPluginAsync } from 'fastify';
import { errorBody, notReady } from '../errors.ts';
import { plainResponse } from '../schemas/responses.ts';

/**
 * Each dependency's state: `error` makes the process unready (503); `degraded` (working on a
 * fallback, e.g. Redis down) is reported but still ready.
 */
export type ReadinessChecks = Record<string, 'ok' | 'degraded' | 'error'>;

export interface HealthDeps {
  ready: () => Promise<ReadinessChecks>;
}

const livenessSchema = {
  tags: ['operations'],
  summary: 'Liveness',
  response: {
    200: {
      description: 'The process answers.',
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['ok'] } },
    },
  },
};

const readinessSchema = {
  tags: ['operations'],
  summary: 'Readiness',
  response: {
    200: plainResponse('Readiness', 'Every dependency answers.'),
    503: plainResponse('NotReady', 'A dependency does not answer; code: not_ready.'),
  },
};

/** The health routes. */
export const healthRoutes: FastifyPluginAsync<HealthDeps> = async (app, { ready }) => {
  app.get('/healthz', { schema: livenessSchema, logLevel: 'warn' }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: readinessSchema, logLevel: 'warn' }, async (request, reply) => {
    const checks = await ready();
    if (Object.values(checks).every((state) => state !== 'error')) return { status: 'ok', checks };
    request.log.warn({ checks }, 'not ready');
    reply.code(503);
    return { ...errorBody(notReady(), request.id), checks };
  });
};

/**
 * The HTTP API as a Fastify plugin (`apiApp`) and `buildApp`, which makes a Fastify instance with
 * the server options the API's contract depends on (body limit, request ids, strict validation)
 * and registers it. `server.ts` adds listening, timeouts and graceful shutdown; tests call
 * `buildApp` and `inject()`.
 */

import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { KeyUseRecorder } from '../accounts/key-use.ts';
import type { Plan } from '../accounts/plans.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { DoctorAccess } from '../doctor/doctor-service.ts';
import type { FeedbackService } from '../feedback/feedback-service.ts';
import type { CampaignCheckService } from '../integrations/campaign-check.ts';
import type { HubSpotAppEvents } from '../integrations/hubspot/app-events.ts';
import type { IntegrationService } from '../integrations/integration-service.ts';
import type { RunService } from '../integrations/runs/run-service.ts';
import type { ScheduleService } from '../integrations/schedules/schedule-service.ts';
import type { WatchService } from '../integrations/watches.ts';
import type { ListService } from '../lists/list-service.ts';
import { NO_METRICS } from '../observability/noop.ts';
import type { MetricsExposition, MetricsRecorder } from '../observability/ports.ts';
import type { DataProtection } from '../privacy/data-protection.ts';
import type { DomainCheckService } from '../sender-checks/domain-check-service.ts';
import type { Store } from '../store.ts';
import type { RateLimiter } from '../usage/ports.ts';
import type { VerificationService } from '../usage/verification-service.ts';
import { addBodyDeadline } from './body-deadline.ts';
import {
  applyConnectionLimits,
  CONNECTIONS_CHECKING_INTERVAL_MS,
  type ConnectionLimits,
} from './connection-limits.ts';
import { deferredChildLoggers } from './deferred-child-loggers.ts';
import { handleClientError, handleError, handleFrameworkError, handleNotFound } from './errors.ts';
import { type LazyCompilers, lazyCompilers } from './lazy-compilers.ts';
import { type LoggerSettings, loggerOptions } from './logger.ts';
import { dashboardPlugin } from './plugins/dashboard.ts';
import { documentRoutes } from './plugins/documents.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { openApiPlugin } from './plugins/openapi.ts';
import { requestIdFor } from './plugins/request-id.ts';
import { RequestLineController, requestLogPlugin } from './plugins/request-log.ts';
import { responseHeadersPlugin } from './plugins/response-headers.ts';
import { healthRoutes, type ReadinessChecks } from './routes/health.ts';
import { hubspotHookRoutes } from './routes/hubspot-hooks.ts';
import { integrationHookRoutes } from './routes/integration-hooks.ts';
import { integrationOAuthRoutes } from './routes/integration-oauth.ts';
import { type DashboardAuth, v1Routes } from './routes/v1/index.ts';
import { sharedSchemas } from './schemas/responses.ts';

/** What the API runs on. */
export interface AppDeps {
  service: Pick<VerificationService, 'verifyOne' | 'verifyBulk' | 'quotaState'>;
  store: Store;
  rateLimiter: RateLimiter;
  plans: Readonly<Record<string, Plan>>;
  /** Records keys' last use. */
  keyUse?: Pick<KeyUseRecorder, 'used'>;
  /** Sign-up, sign-in and sessions (the dashboard); without it only API keys are accepted. */
  dashboard?: DashboardAuth;
  /** The service's wall clock (usage days and months). */
  now?: () => Date;
  /** The built dashboard's folder (default `dist/web`). */
  dashboardRoot?: string;
  /** Readiness checks for /readyz; by default the store's ping plus `moreReadiness`. */
  ready?: () => Promise<ReadinessChecks>;
  /** List jobs (absent in tests of the verification routes alone). */
  lists?: ListService;
  /** Connected email platforms and their watches (absent in tests of the verification routes alone). */
  integrations?: IntegrationService;
  watches?: WatchService;
  /** HubSpot's app events at `/hooks/hubspot` (when the operator configured the app). */
  hubspotHooks?: { events: HubSpotAppEvents; publicOrigin: string };
  /** The pre-campaign check. */
  campaignChecks?: CampaignCheckService;
  /** Runs of integrations. */
  runs?: RunService;
  /** Schedules of integration runs. */
  schedules?: ScheduleService;
  /** Signs list webhooks. */
  secretKey?: Buffer;
  /** The probe host's health for operators (GET /api/v1/doctor). */
  doctor?: DoctorAccess;
  /** Senders' feedback (POST /api/v1/feedback). */
  feedback?: Pick<FeedbackService, 'submit'>;
  /** Sender-domain checks (POST /api/v1/domains/check). */
  domainChecks?: Pick<DomainCheckService, 'check'>;
  /** The audit log (GET /api/v1/audit, and the changes the routes record). */
  audit?: AuditTrail;
  /** Erasure (DELETE /api/v1/addresses/{email}), the account's settings and its export. */
  privacy?: DataProtection;
  /** A list upload whose body stops arriving for this long is refused (408), ms [30,000]. */
  uploadIdleTimeoutMs?: number;
  /** A list upload that takes longer than this in all is refused (408), ms [3,600,000]. */
  uploadTimeoutMs?: number;
  /** Further lines for the default /readyz (Redis in scale-out). */
  moreReadiness?: () => Promise<ReadinessChecks>;
  /** Records requests and refusals (metrics off when absent). */
  metrics?: MetricsRecorder;
  /** With `metricsToken`, served at `/metrics` to callers presenting that bearer token. */
  metricsExposition?: MetricsExposition;
  metricsToken?: string;
}

/** Server options that are not part of the API's contract. */
export interface BuildAppOptions {
  /** Logging; off when absent or false. */
  logger?: LoggerSettings | false;
  /** The process's own logger, used instead of `logger` (the API then logs where start-up did). */
  loggerInstance?: FastifyBaseLogger;
  /**
   * Time allowed to receive a whole request, ms (0: none); the list upload has an idle timeout
   * between body chunks instead (`uploadIdleTimeoutMs`).
   */
  requestTimeoutMs?: number;
  /** Socket inactivity allowed, ms (0: none); must exceed the slowest verification. */
  connectionTimeoutMs?: number;
  /** Caps on sockets (in all, per client address) and on idle ones; none when absent (tests). */
  connectionLimits?: ConnectionLimits;
  /** Validators and serializers, compiled on first use (a test passes its own to compile them all). */
  compilers?: LazyCompilers;
}

/** Largest request body accepted (1 MB, docs/api.md). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

const READINESS_TIMEOUT_MS = 2000;

/** The API: shared schemas, error model, request ids, OpenAPI, health and /api/v1 routes. */
export const apiApp = fp<AppDeps>(async (app, deps) => {
  for (const schema of sharedSchemas) app.addSchema(schema);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  await app.register(responseHeadersPlugin);
  await app.register(requestLogPlugin);
  await app.register(metricsPlugin, {
    metrics: deps.metrics ?? NO_METRICS,
    ...(deps.metricsExposition !== undefined &&
      deps.metricsToken !== undefined && {
        endpoint: { exposition: deps.metricsExposition, token: deps.metricsToken },
      }),
  });
  await app.register(fastifyCookie);
  // Before the routes: the OpenAPI generator collects routes as they are added.
  await app.register(openApiPlugin);
  await app.register(documentRoutes);
  const ready = deps.ready ?? (() => defaultReadiness(deps));
  await app.register(healthRoutes, { ready });
  await app.register(v1Routes, { ...deps, prefix: '/api/v1' });
  if (deps.watches !== undefined) await app.register(integrationHookRoutes, { watches: deps.watches });
  if (deps.hubspotHooks !== undefined) await app.register(hubspotHookRoutes, deps.hubspotHooks);
  if (deps.integrations !== undefined && deps.dashboard !== undefined && deps.secretKey !== undefined) {
    await app.register(integrationOAuthRoutes, {
      integrations: deps.integrations,
      sessions: deps.dashboard.sessions.manager,
      secretKey: deps.secretKey,
      publicOrigin: deps.dashboard.sessions.publicOrigin,
      now: deps.now,
    });
  }
  // Last: it answers every other GET with the single-page app, leaving /api and the probes alone.
  await app.register(dashboardPlugin, { root: deps.dashboardRoot });
});

/** A Fastify instance serving the API; call `ready()`, `inject()` or `listen()` on it. */
export function buildApp(deps: AppDeps, options: BuildAppOptions = {}): FastifyInstance {
  const logger = options.loggerInstance === undefined ? loggerOptions(options.logger) : undefined;
  const app = Fastify({
    ...(options.loggerInstance === undefined ? { logger } : { loggerInstance: options.loggerInstance }),
    bodyLimit: BODY_LIMIT_BYTES,
    // One line per request (request-log.ts) instead of Fastify's two.
    logController: new RequestLineController(),
    // Logging off, Fastify makes no child logger at all; on, a request's is made when it writes.
    ...(logger !== false && { childLoggerFactory: deferredChildLoggers() }),
    requestIdHeader: false,
    genReqId: requestIdFor,
    // Off: the body's deadline is per route (body-deadline.ts); the head keeps Node's bound.
    requestTimeout: 0,
    connectionTimeout: options.connectionTimeoutMs ?? 0,
    ...(options.connectionLimits && { keepAliveTimeout: options.connectionLimits.keepAliveTimeoutMs }),
    http: {
      headersTimeout: headersTimeoutMs(options),
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    },
    // Shutdown closes idle keep-alive sockets at once and lets in-flight requests finish; a
    // request arriving meanwhile on a busy socket is answered (with Connection: close), not 503'd.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Extra properties are ignored (docs/api.md): the dangerous ones are dropped, not refused.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
    schemaController: { compilersFactory: compilersFactory(options.compilers ?? lazyCompilers()) },
    ajv: {
      // Fastify coerces types by default ("123" for 123): the API refuses wrong types instead.
      // One error at a time: bodies may hold 250,000 bad entries, and Ajv would list them all.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  });
  if ((options.requestTimeoutMs ?? 0) > 0) addBodyDeadline(app, options.requestTimeoutMs!);
  if (options.connectionLimits !== undefined) {
    applyConnectionLimits(app.server, options.connectionLimits, (message, fields) =>
      app.log.warn(fields, message),
    );
  }
  app.register(apiApp, deps);
  return app;
}

async function defaultReadiness(deps: AppDeps): Promise<ReadinessChecks> {
  const [store, more] = await Promise.all([storeReadiness(deps.store), deps.moreReadiness?.() ?? {}]);
  return { ...store, ...more };
}

/** Readiness of the store: ping within a bound, so a hung database makes /readyz fail, not hang. */
async function storeReadiness(store: Pick<Store, 'ping'>): Promise<ReadinessChecks> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('store ping timed out')), READINESS_TIMEOUT_MS);
  });
  try {
    await Promise.race([store.ping(), timeout]);
    return { store: 'ok' };
  } catch {
    return { store: 'error' };
  } finally {
    clearTimeout(timer);
  }
}

/** The factories Fastify takes (without `compileAll`, which it must not see). */
function compilersFactory({ buildValidator, buildSerializer }: LazyCompilers) {
  return { buildValidator, buildSerializer };
}

/** The request head's bound: the configured one, never longer than a whole request's. */
function headersTimeoutMs(options: BuildAppOptions): number {
  const request = options.requestTimeoutMs ?? 0;
  const headers = options.connectionLimits?.headersTimeoutMs ?? NODE_HEADERS_TIMEOUT_MS;
  return request > 0 ? Math.min(headers, request) : headers;
}

/** Node's default bound on a request head. */
const NODE_HEADERS_TIMEOUT_MS = 60_000;

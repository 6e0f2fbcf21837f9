/**
 * The composition root: the one place that picks adapters from configuration and wires them into
 * the verification core.
 */

import { hostname } from 'node:os';
import { DeviceTokens } from '../accounts/devices.ts';
import { KeyUseRecorder } from '../accounts/key-use.ts';
import { effectiveLimits, type Plan } from '../accounts/plans.ts';
import { SessionManager } from '../accounts/sessions.ts';
import { SystemClock } from '../adapters/clock/system.ts';
import { CachedDnsResolver } from '../adapters/dns/cached-resolver.ts';
import { HealthCheckedDnsResolver } from '../adapters/dns/health-checked-resolver.ts';
import { ResolverHealth } from '../adapters/dns/resolver-health.ts';
import { type OperatorListWarning, readOperatorLists } from '../adapters/domain-lists/operator-lists.ts';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory.ts';
import { redisReadiness } from '../adapters/redis/redis-readiness.ts';
import { MemoryResultCache } from '../adapters/result-cache/memory.ts';
import { deriveKey, KEY_PURPOSES, loadSecretKey } from '../adapters/secret-key.ts';
import { ConnectionBudget } from '../adapters/smtp/connection-budget.ts';
import { SmtpProber } from '../adapters/smtp/smtp-prober.ts';
import { SocksDialer } from '../adapters/smtp/socks-dialer.ts';
import { exposedDataFiles } from '../adapters/store/sqlite/private-files.ts';
import { ResolvingWebhookTargetCheck } from '../adapters/webhooks/target-check.ts';
import { AuditTrail } from '../audit/audit-trail.ts';
import { type Config, ConfigError, publicOrigin } from '../config.ts';
import { FeedbackService } from '../feedback/feedback-service.ts';
import { DEFAULT_THROTTLE, SignInThrottle, signUpsPerDay } from '../http/sign-in-throttle.ts';
import type { Provider } from '../integrations/ports.ts';
import { ScheduleService } from '../integrations/schedules/schedule-service.ts';
import { ListService } from '../lists/list-service.ts';
import { MeteredDnsResolver } from '../observability/metered-dns.ts';
import {
  meteredProber,
  meteredResultCache,
  meteredSessionEvents,
  meteredVerifier,
} from '../observability/metered-verification.ts';
import { NO_METRICS } from '../observability/noop.ts';
import type { MetricsRecorder } from '../observability/ports.ts';
import { ErasureService } from '../privacy/erasure.ts';
import { DailyUsageRecorder } from '../usage/daily-usage.ts';
import type { RateLimiter } from '../usage/ports.ts';
import { VerificationService } from '../usage/verification-service.ts';
import { createListChecker } from '../verification/checks/domain-lists.ts';
import { SkippingProber } from '../verification/checks/smtp-skipped.ts';
import { Verifier } from '../verification/pipeline.ts';
import type { Clock, DnsResolver, MailboxProber } from '../verification/ports.ts';
import { createCatchAllAssessor } from './catch-all.ts';
import { configuredResolver } from './dns.ts';
import { createDoctorService } from './doctor.ts';
import {
  createCampaignChecks,
  createHubSpotHooks,
  createIntegrations,
  createWatches,
} from './integrations.ts';
import { createQueue, failListsGivenUp } from './jobs.ts';
import { createLogger, type Logger } from './logger.ts';
import { createAccountMail, createMailer } from './mail.ts';
import { createMetrics } from './metrics.ts';
import { createRuns } from './runs.ts';
import { createDomainChecks } from './sender-checks.ts';
import type { Services } from './services.ts';
import { defaultPlanOf, loadPlans, openConfiguredStore } from './store.ts';

export { loadPlans, migrateConfiguredStore, openConfiguredStore } from './store.ts';

import { SHARED_HOST_SESSIONS, type SharedState, sharedState } from './shared-state.ts';

export type { Services };

/** Builds the verifier for this configuration. Operator list problems are written to `warn`. */
export async function createVerifier(
  config: Config,
  warn: (message: string) => void = stderrWarn,
  shared?: SharedState,
): Promise<Verifier> {
  return (await createVerifierParts(config, warn, shared)).verifier;
}

/** The verifier and its resolver's health check (for /readyz). */
async function createVerifierParts(
  config: Config,
  warn: (message: string) => void,
  shared?: SharedState,
  metrics: MetricsRecorder = NO_METRICS,
  budget: ConnectionBudget = connectionBudgetFor(config, new SystemClock(), shared),
): Promise<{ verifier: Verifier; resolverHealth: ResolverHealth }> {
  const clock = new SystemClock();
  const resolver = configuredResolver(config);
  const operator = await readOperatorLists({
    allowFile: config.MAILVET_DISPOSABLE_ALLOW_FILE,
    denyFile: config.MAILVET_DISPOSABLE_DENY_FILE,
  });
  // A configured file that cannot be read is a configuration error; a bad line is only a warning.
  const unreadable = operator.warnings.filter((warning) => warning.problem === 'unreadable');
  if (unreadable.length > 0) throw new ConfigError(unreadable.map(formatWarning));
  for (const warning of operator.warnings) warn(formatWarning(warning));
  // Control queries go to the resolver itself; the health check sits below the cache, so an
  // NXDOMAIN a broken resolver made up is never cached or shared.
  const upstream = metrics.enabled ? new MeteredDnsResolver(resolver, metrics) : resolver;
  const resolverHealth = new ResolverHealth(upstream, clock, {
    controlNames: config.MAILVET_DNS_CONTROL_NAMES,
    verdictTtlMs: config.MAILVET_DNS_CONTROL_TTL * 1000,
    warn,
  });
  const checked = new HealthCheckedDnsResolver(upstream, resolverHealth);
  const dns = new CachedDnsResolver(checked, clock, {
    shared: shared?.dnsAnswers,
    ...(metrics.enabled && { onLookup: (question, hit) => metrics.dnsCacheLookup(question, hit) }),
  });
  const prober = createProber(config, dns, clock, shared, warn, metrics, budget);
  const verifier = new Verifier({
    dns,
    prober: metrics.enabled ? meteredProber(prober, metrics) : prober,
    lists: createListChecker({ allowDomains: operator.allowDomains, denyDomains: operator.denyDomains }),
    clock,
  });
  return { verifier, resolverHealth };
}

function formatWarning(warning: OperatorListWarning): string {
  const where = warning.line === null ? warning.file : `${warning.file}:${warning.line}`;
  return `operator list ${where}: ${warning.message}`;
}

/** What a caller may put in place of the configured parts (tests, benchmarks). */
export interface ServiceOverrides {
  /** The process's logger (default: info level to standard output). */
  log?: Logger;
  /** A verifier instead of the configured DNS resolver and SMTP prober. */
  verifier?: Pick<Verifier, 'verify'>;
  rateLimiter?: RateLimiter;
  plans?: Readonly<Record<string, Plan>>;
  /** The service's wall clock (the calendar month of usage). */
  now?: () => Date;
  /** Platforms offered beside the built-in ones (an adapter under test). */
  moreProviders?: readonly Provider[];
}

/** Builds the services of this configuration: store (migrated), plans, limits, caches, verifier, queue. */
export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const log = overrides.log ?? createLogger({ level: config.MAILVET_LOG_LEVEL });
  const warn = (message: string): void => log.warn(message);
  const metrics = await createMetrics(config);
  const recorder = metrics ?? NO_METRICS;
  const clock = new SystemClock();
  const plans = overrides.plans ?? (await loadPlans(config));
  const defaultPlan = defaultPlanOf(config, plans);
  // Loaded only in scale-out: an embedded process never pays for the Redis client (start-up, memory).
  const redisClients =
    config.REDIS_URL === undefined ? undefined : await import('../adapters/redis/redis-client.ts');
  const redis =
    config.REDIS_URL === undefined
      ? undefined
      : redisClients!.createRedisClient(config.REDIS_URL, {
          commandTimeoutMs: config.MAILVET_REDIS_TIMEOUT_MS,
        });
  // Waiting here keeps the first requests from falling back (and warning) while Redis connects.
  if (redis !== undefined && !(await redisClients!.waitUntilReady(redis))) {
    warn('Redis is not answering yet: rate limits and caches use memory until it does');
  }
  const shared = redis && sharedState(redis, clock, warn, config.MAILVET_SMTP_PROBE_TIMEOUT_MS);
  // One connection budget for every outbound SMTP connection: the verification probe's and the
  // domain checks' STARTTLS dials draw on the same buckets.
  const connectionBudget = connectionBudgetFor(config, clock, shared);
  const built =
    overrides.verifier === undefined
      ? await createVerifierParts(config, warn, shared, recorder, connectionBudget)
      : undefined;
  const verifier = overrides.verifier ?? built!.verifier;
  const secretKey = await loadSecretKey(config);
  // Servers and workers write all day: their SQLite checkpoints leave the event loop once busy.
  const store = await openConfiguredStore(config, plans, { backgroundCheckpoints: true });
  if (store.kind === 'sqlite') for (const exposed of exposedDataFiles(config.MAILVET_DATA_DIR)) warn(exposed);
  const queue = await createQueue(config, failListsGivenUp(store.lists, warn, store.runs));
  const audit = new AuditTrail({ log: store.audit, ...(overrides.now && { now: overrides.now }) });
  const lists = new ListService({
    audit,
    lists: store.lists,
    uploadWritesInFlight: store.kind === 'postgres' ? 2 : 1,
    queue,
    webhookTargets: new ResolvingWebhookTargetCheck({ allowPrivate: config.MAILVET_WEBHOOK_ALLOW_PRIVATE }),
    onEnqueueError: (listId, error) =>
      warn(
        `list ${listId} not queued now (${error instanceof Error ? error.message : String(error)}); a worker sweep will pick it up`,
      ),
  });
  const daily = new DailyUsageRecorder(store);
  // Display figures: added to the store once a second, and at close.
  const flushDaily = () =>
    daily.flush().catch((error: unknown) => log.warn({ err: error }, 'daily usage figures not saved yet'));
  const dailyTimer = setInterval(flushDaily, DAILY_FLUSH_MS);
  dailyTimer.unref();
  const rateLimiter = overrides.rateLimiter ?? shared?.rateLimiter ?? new MemoryRateLimiter(clock);
  const origin = publicOrigin(config);
  const doctor = { service: createDoctorService(config) };
  const cache = shared?.resultCache ?? new MemoryResultCache();
  const feedback = new FeedbackService({
    store: store.feedback,
    maxStoredEvents: config.MAILVET_FEEDBACK_MAX_EVENTS,
    planEvents: async (accountId) => {
      const account = await store.findAccount(accountId);
      return account === null ? 0 : effectiveLimits(plans, account.plan, account).maxFeedbackEvents;
    },
    pace: { rateLimiter, requestsPerSecond: config.MAILVET_FEEDBACK_REQUESTS_PER_SECOND },
    ...(overrides.now && { now: overrides.now }),
  });
  const catchAll = createCatchAllAssessor(config, store);
  const privacy = {
    erasure: new ErasureService({
      store: store.privacy,
      cache,
      forgetAccountDomain: (accountId, domain) => catchAll.forget(accountId, domain),
      idKey: deriveKey(secretKey, KEY_PURPOSES.erasures),
      audit,
    }),
    defaultRetentionDays: config.MAILVET_RETENTION_DAYS,
  };
  const service = new VerificationService({
    verifier: recorder.enabled ? meteredVerifier(verifier, recorder) : verifier,
    usage: store,
    daily,
    cache: recorder.enabled ? meteredResultCache(cache, recorder) : cache,
    resultTtlSeconds: config.MAILVET_RESULT_TTL,
    inconclusiveTtlSeconds: config.MAILVET_INCONCLUSIVE_RESULT_TTL,
    feedback,
    catchAll,
    ...(overrides.now && { now: overrides.now }),
  });
  const integrations = createIntegrations(config, store.integrations, secretKey, {
    inFlight: shared?.inFlight,
    requestWindow: shared?.requestWindow,
    now: overrides.now,
    moreProviders: overrides.moreProviders,
    audit,
  });
  recorder.queueDepthFrom(() => queue.counts());
  const watches = createWatches({
    integrations,
    store,
    service,
    plans,
    publicOrigin: origin,
    log,
    now: overrides.now,
    audit,
    erasure: privacy.erasure,
  });
  const hubspotHooks = createHubSpotHooks(config, {
    store: store.integrations,
    watches,
    erasure: privacy.erasure,
    publicOrigin: origin,
    log,
  });
  const mailer = createMailer(config);
  return {
    config,
    log,
    metrics: recorder,
    ...(metrics && { metricsExposition: metrics }),
    verifier,
    store,
    service,
    feedback,
    rateLimiter,
    plans,
    daily,
    keyUse: new KeyUseRecorder(store, (error) => log.warn({ err: error }, 'could not record a key use')),
    dashboard: {
      sessions: {
        manager: new SessionManager({
          users: store.users,
          secretKey,
          ...(overrides.now && { now: overrides.now }),
        }),
        publicOrigin: origin,
        secureCookie: origin.startsWith('https:'),
        confirmationRequired: mailer !== undefined,
      },
      throttle: new SignInThrottle(rateLimiter, {
        ...DEFAULT_THROTTLE,
        signUpsPerServer: signUpsPerDay(config.MAILVET_SIGNUP_DAILY_MAX),
      }),
      signup: config.MAILVET_SIGNUP,
      plan: defaultPlan,
      devices: new DeviceTokens(deriveKey(secretKey, KEY_PURPOSES.devices), overrides.now),
      accountMail: createAccountMail(mailer, store.users, origin, overrides.now),
    },
    ...(overrides.now && { now: overrides.now }),
    queue,
    lists,
    integrations,
    audit,
    privacy,
    runs: createRuns({ store, plans, integrations, lists, queue, log, now: overrides.now, audit }),
    schedules: new ScheduleService({ integrations, store: store.schedules, now: overrides.now, audit }),
    campaignChecks: createCampaignChecks({ integrations, store, service, plans, now: overrides.now }),
    watches,
    ...(hubspotHooks && { hubspotHooks }),
    secretKey,
    doctor,
    domainChecks: createDomainChecks(config, store, connectionBudget, overrides.now),
    moreReadiness: async (): Promise<Record<string, 'ok' | 'degraded'>> => {
      const [dns, redisLine] = await Promise.all([
        built?.resolverHealth.readiness(),
        redis === undefined ? undefined : redisReadiness(redis),
      ]);
      return { ...(dns && { dns }), ...(redisLine && { redis: redisLine }) };
    },
    close: async () => {
      doctor.service.close();
      clearInterval(dailyTimer);
      await flushDaily();
      await queue.close();
      mailer?.close();
      await store.close();
      if (redis !== undefined) await redisClients!.closeRedis(redis);
    },
  };
}

/** How often the daily usage figures are added to the store, ms. */
const DAILY_FLUSH_MS = 1000;

function stderrWarn(message: string): void {
  process.stderr.write(`mailvet: ${message}\n`);
}

/** The SMTP stage: the real prober, or one that skips when MAILVET_SMTP_PROBE=false. */
export function createProber(
  config: Config,
  dns: DnsResolver,
  clock: Clock,
  shared?: SharedState,
  warn: (message: string) => void = stderrWarn,
  metrics: MetricsRecorder = NO_METRICS,
  budget: ConnectionBudget = connectionBudgetFor(config, clock, shared),
): MailboxProber {
  if (!config.MAILVET_SMTP_PROBE) return new SkippingProber();
  const helo = config.MAILVET_SMTP_HELO ?? hostname();
  return new SmtpProber(dns, clock, {
    port: config.MAILVET_SMTP_PORT,
    identity: { helo, from: config.MAILVET_SMTP_FROM ?? `verify@${helo}` },
    allowPrivate: config.MAILVET_SMTP_ALLOW_PRIVATE,
    connectTimeoutMs: config.MAILVET_SMTP_CONNECT_TIMEOUT_MS,
    commandTimeoutMs: config.MAILVET_SMTP_TIMEOUT_MS,
    probeTimeoutMs: config.MAILVET_SMTP_PROBE_TIMEOUT_MS,
    perHostSessions: SHARED_HOST_SESSIONS,
    catchAllStore: shared?.catchAll,
    hostLimiter: shared?.hostLimiter,
    maxSessions: config.MAILVET_SMTP_MAX_SESSIONS,
    accountProbes: config.MAILVET_SMTP_ACCOUNT_PROBES,
    maxMxHosts: config.MAILVET_SMTP_MX_HOSTS,
    addressesPerHost: config.MAILVET_SMTP_ADDRESSES_PER_HOST,
    hostWaitMs: config.MAILVET_SMTP_HOST_WAIT_MS,
    sessionLingerMs: config.MAILVET_SMTP_SESSION_LINGER_MS,
    connectionBudget: budget,
    egress: config.MAILVET_SMTP_PROXY.map((proxy) => new SocksDialer(proxy, warn)),
    ...(metrics.enabled && { sessionEvents: meteredSessionEvents(metrics) }),
  });
}

/** The SMTP connection budget of this configuration: in Redis in scale-out, else this process's memory. */
function connectionBudgetFor(config: Config, clock: Clock, shared?: SharedState): ConnectionBudget {
  return new ConnectionBudget(shared?.rateLimiter ?? new MemoryRateLimiter(clock), clock, {
    perAddress: config.MAILVET_SMTP_CONNECTIONS_PER_ADDRESS,
    perDomain: config.MAILVET_SMTP_CONNECTIONS_PER_DOMAIN,
    perAccount: config.MAILVET_SMTP_CONNECTIONS_PER_ACCOUNT,
    refusedForMs: config.MAILVET_SMTP_REFUSED_HOLD_MS,
  });
}

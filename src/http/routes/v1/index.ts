/**
 * The /api/v1 routes. Sign-up and sign-in are public, in a context of their own; every other route
 * is in the authenticated context, like a folder with `autohooks`: auth (an API key or a session),
 * then the rate limit, apply to every route registered there, in that order. The
 * verification routes add the JSON-object check in their own context, and the list routes their
 * streaming body parsers.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AccountMail } from '../../../accounts/account-mail.ts';
import type { DeviceTokens } from '../../../accounts/devices.ts';
import type { KeyUseRecorder } from '../../../accounts/key-use.ts';
import type { Plan } from '../../../accounts/plans.ts';
import type { AuditTrail } from '../../../audit/audit-trail.ts';
import type { DoctorAccess } from '../../../doctor/doctor-service.ts';
import type { FeedbackService } from '../../../feedback/feedback-service.ts';
import type { CampaignCheckService } from '../../../integrations/campaign-check.ts';
import type { IntegrationService } from '../../../integrations/integration-service.ts';
import type { RunService } from '../../../integrations/runs/run-service.ts';
import type { ScheduleService } from '../../../integrations/schedules/schedule-service.ts';
import type { WatchService } from '../../../integrations/watches.ts';
import type { ListService } from '../../../lists/list-service.ts';
import type { DataProtection } from '../../../privacy/data-protection.ts';
import type { DomainCheckService } from '../../../sender-checks/domain-check-service.ts';
import type { Store } from '../../../store.ts';
import type { RateLimiter } from '../../../usage/ports.ts';
import type { VerificationService } from '../../../usage/verification-service.ts';
import { auditPlugin } from '../../plugins/audit.ts';
import { authPlugin, type SessionAuth } from '../../plugins/auth.ts';
import { jsonBodyPlugin } from '../../plugins/json-body.ts';
import { rateLimitPlugin } from '../../plugins/rate-limit.ts';
import type { SignInThrottle } from '../../sign-in-throttle.ts';
import { accountRoutes } from './accounts/account.ts';
import { accountSettingsRoutes } from './accounts/account-settings.ts';
import { accountExportRoute } from './accounts/export.ts';
import { keyRoutes } from './accounts/keys.ts';
import { publicSessionRoutes, sessionRoutes } from './accounts/session.ts';
import { addressRoutes } from './addresses.ts';
import { auditRoutes } from './audit.ts';
import { bulkRoute } from './bulk.ts';
import { doctorRoutes } from './doctor.ts';
import { domainCheckRoute } from './domains.ts';
import { feedbackRoutes } from './feedback.ts';
import { campaignCheckRoutes } from './integrations/campaign-checks.ts';
import { integrationRoutes } from './integrations/index.ts';
import { runRoutes } from './integrations/runs.ts';
import { scheduleRoutes } from './integrations/schedules.ts';
import { listRoutes } from './lists/index.ts';
import { verifyRoute } from './verify.ts';

/** What sign-up, sign-in and sessions need; without it only API keys are accepted. */
export interface DashboardAuth {
  sessions: SessionAuth;
  throttle: SignInThrottle;
  signup: 'open' | 'closed';
  /** The plan new sign-ups are on. */
  plan: string;
  /** Signs the cookie of browsers that signed in before. */
  devices: DeviceTokens;
  /** Confirmation and password-reset links; absent without a mail relay (MAILVET_MAIL_URL). */
  accountMail?: AccountMail;
}

export interface V1Deps {
  service: Pick<VerificationService, 'verifyOne' | 'verifyBulk' | 'quotaState'>;
  store: Store;
  rateLimiter: RateLimiter;
  plans: Readonly<Record<string, Plan>>;
  keyUse?: Pick<KeyUseRecorder, 'used'>;
  /** Accounts' users and sessions. */
  dashboard?: DashboardAuth;
  /** List jobs; without them (tests of the verification routes) the list routes are absent. */
  lists?: ListService;
  /** Connected email platforms and their watches; without them the integration routes are absent. */
  integrations?: IntegrationService;
  watches?: WatchService;
  /** The pre-campaign check; without it its route is absent. */
  campaignChecks?: CampaignCheckService;
  /** Runs of integrations; without them their routes are absent. */
  runs?: RunService;
  /** Schedules of integration runs; without them their routes are absent. */
  schedules?: ScheduleService;
  /** Signs webhooks: the per-list webhook secret is derived from it. */
  secretKey?: Buffer;
  /** The probe host's health for operators; without it its route is absent. */
  doctor?: DoctorAccess;
  /** Senders' feedback; without it its routes are absent. */
  feedback?: Pick<FeedbackService, 'submit'>;
  /** Sender-domain checks; without them their route is absent. */
  domainChecks?: Pick<DomainCheckService, 'check'>;
  /** The audit log: changes recorded by the routes that make them, and its own route; absent, neither. */
  audit?: AuditTrail;
  /** Erasure and the default retention; without it the erasure, settings and export routes are absent. */
  privacy?: DataProtection;
  /** A list upload whose body stops arriving for this long is refused (408), ms. */
  uploadIdleTimeoutMs?: number;
  /** A list upload that takes longer than this in all is refused (408), ms. */
  uploadTimeoutMs?: number;
  now?: () => Date;
}

/** Registers the routes under the caller's prefix (`/api/v1`). */
export const v1Routes: FastifyPluginAsync<V1Deps> = async (app, deps) => {
  const { service, store, rateLimiter, plans, lists, secretKey, dashboard } = deps;
  // Each plugin gets only its own dependencies: passing these options on whole would pass the
  // caller's `prefix` too, and prefix the routes twice.
  const sessionDeps =
    dashboard === undefined
      ? undefined
      : { ...dashboard, users: store.users, accounts: store, audit: deps.audit };
  if (sessionDeps !== undefined) await app.register(publicSessionRoutes, sessionDeps);

  await app.register(async (authed) => {
    await authed.register(authPlugin, { store, plans, keyUse: deps.keyUse, sessions: dashboard?.sessions });
    await authed.register(rateLimitPlugin, { rateLimiter, service });
    await authed.register(auditPlugin, { keys: store });
    await authed.register(async (verification) => {
      await verification.register(jsonBodyPlugin);
      await verification.register(verifyRoute, { service });
      await verification.register(bulkRoute, { service });
      if (deps.domainChecks !== undefined)
        await verification.register(domainCheckRoute, { domainChecks: deps.domainChecks });
    });
    if (lists !== undefined && secretKey !== undefined) {
      await authed.register(listRoutes, {
        lists,
        secretKey,
        maxRows: LIST_MAX_ROWS,
        uploadIdleTimeoutMs: deps.uploadIdleTimeoutMs ?? UPLOAD_IDLE_TIMEOUT_MS,
        uploadTimeoutMs: deps.uploadTimeoutMs ?? UPLOAD_TIMEOUT_MS,
      });
    }
    await authed.register(accountRoutes, {
      store,
      now: deps.now,
      ...(deps.privacy && { defaultRetentionDays: deps.privacy.defaultRetentionDays }),
    });
    if (deps.privacy !== undefined) {
      const { privacy, audit } = deps;
      await authed.register(async (settings) => {
        await settings.register(jsonBodyPlugin);
        await settings.register(accountSettingsRoutes, {
          store,
          defaultRetentionDays: privacy.defaultRetentionDays,
          audit,
        });
      });
      await authed.register(addressRoutes, { erasure: privacy.erasure });
      await authed.register(accountExportRoute, {
        store,
        runs: deps.runs ?? { page: async () => [] },
        plans,
        defaultRetentionDays: privacy.defaultRetentionDays,
        now: deps.now ?? (() => new Date()),
        audit,
      });
    }
    if (deps.integrations !== undefined && deps.watches !== undefined) {
      await authed.register(integrationRoutes, {
        integrations: deps.integrations,
        watches: deps.watches,
        runs: deps.runs,
      });
    }
    if (deps.runs !== undefined) await authed.register(runRoutes, { runs: deps.runs });
    if (deps.campaignChecks !== undefined)
      await authed.register(campaignCheckRoutes, { campaignChecks: deps.campaignChecks });
    if (deps.schedules !== undefined) await authed.register(scheduleRoutes, { schedules: deps.schedules });
    if (deps.doctor !== undefined) await authed.register(doctorRoutes, deps.doctor);
    if (deps.feedback !== undefined) await authed.register(feedbackRoutes, { feedback: deps.feedback });
    if (deps.audit !== undefined) await authed.register(auditRoutes, { audit: deps.audit });
    if (sessionDeps !== undefined) {
      await authed.register(sessionRoutes, sessionDeps);
      await authed.register(keyRoutes, { store, now: deps.now, audit: deps.audit });
    }
  });
};

/** How long a list upload's body may stop arriving by default, ms (MAILVET_UPLOAD_IDLE_TIMEOUT_MS). */
export const UPLOAD_IDLE_TIMEOUT_MS = 30_000;
/** How long a whole list upload may take by default, ms (MAILVET_UPLOAD_TIMEOUT_MS): an hour. */
export const UPLOAD_TIMEOUT_MS = 3_600_000;

/** The most rows one list may have (up to 1,000,000). */
export const LIST_MAX_ROWS = 1_000_000;

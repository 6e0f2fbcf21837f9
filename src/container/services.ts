/**
 * What the composition root hands the API, the worker and the CLI: the services wired from
 * configuration. Its own module, so the wiring files can share it without importing each other.
 */
import type { KeyUseRecorder } from '../accounts/key-use.ts';
import type { Plan } from '../accounts/plans.ts';
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { Config } from '../config.ts';
import type { DoctorAccess } from '../doctor/doctor-service.ts';
import type { FeedbackService } from '../feedback/feedback-service.ts';
import type { DashboardAuth } from '../http/routes/v1/index.ts';
import type { CampaignCheckService } from '../integrations/campaign-check.ts';
import type { HubSpotAppEvents } from '../integrations/hubspot/app-events.ts';
import type { IntegrationService } from '../integrations/integration-service.ts';
import type { RunService } from '../integrations/runs/run-service.ts';
import type { ScheduleService } from '../integrations/schedules/schedule-service.ts';
import type { WatchService } from '../integrations/watches.ts';
import type { JobQueue } from '../jobs/ports.ts';
import type { ListService } from '../lists/list-service.ts';
import type { MetricsExposition, MetricsRecorder } from '../observability/ports.ts';
import type { DataProtection } from '../privacy/data-protection.ts';
import type { DomainCheckService } from '../sender-checks/domain-check-service.ts';
import type { Store } from '../store.ts';
import type { DailyUsageRecorder } from '../usage/daily-usage.ts';
import type { RateLimiter } from '../usage/ports.ts';
import type { VerificationService } from '../usage/verification-service.ts';
import type { Verifier } from '../verification/pipeline.ts';
import type { Logger } from './logger.ts';

/** Everything the API process runs on, wired from configuration. */
export interface Services {
  config: Config;
  /** The process's one logger. */
  log: Logger;
  /** What the process records for `/metrics` (a no-op when metrics are off). */
  metrics: MetricsRecorder;
  /** What `/metrics` serves; absent when metrics are off. */
  metricsExposition?: MetricsExposition;
  verifier: Pick<Verifier, 'verify'>;
  store: Store;
  service: VerificationService;
  /** Senders' feedback (bounces, deliveries): recorded per account, applied to its verdicts. */
  feedback: FeedbackService;
  rateLimiter: RateLimiter;
  plans: Readonly<Record<string, Plan>>;
  /** The daily usage figures (verifications by status, bulk requests, list rows). */
  daily: DailyUsageRecorder;
  /** Records keys' last use. */
  keyUse: KeyUseRecorder;
  /** Sign-up, sign-in and sessions of the dashboard. */
  dashboard: DashboardAuth;
  /** The service's wall clock, when a test sets it. */
  now?: () => Date;
  /** Carries list jobs to workers (in-process embedded, BullMQ in scale-out). */
  queue: JobQueue;
  /** List jobs for the API. */
  lists: ListService;
  /** Connected email platforms (Mailchimp), and the watches of their audiences. */
  integrations: IntegrationService;
  watches: WatchService;
  /** HubSpot's app events at `/hooks/hubspot`; absent unless the operator configured the app. */
  hubspotHooks?: { events: HubSpotAppEvents; publicOrigin: string };
  /** The pre-campaign check. */
  campaignChecks: CampaignCheckService;
  /** Runs of integrations: audiences read, verified and written back. */
  runs: RunService;
  /** Schedules of runs (the worker's task starts their runs). */
  schedules: ScheduleService;
  /** The audit log: every change in an account, recorded and read back. */
  audit: AuditTrail;
  /** Erasure of an address, and the default retention of list results. */
  privacy: DataProtection;
  /** MAILVET_SECRET_KEY (or the embedded one): signs webhooks. */
  secretKey: Buffer;
  /** The probe host's health (`mailvet doctor`'s report): the start-up line and the operators' panel. */
  doctor?: DoctorAccess;
  /** Sender-domain checks (POST /api/v1/domains/check). */
  domainChecks?: DomainCheckService;
  /** The resolver's line in /readyz, and Redis's in scale-out. */
  moreReadiness?: () => Promise<Record<string, 'ok' | 'degraded'>>;
  /** Closes the store and the Redis connection. */
  close(): Promise<void>;
}

/**
 * Every migration, registered statically: the Migrator never scans the filesystem, so the same
 * code runs from `src/` under tsx and from the compiled `dist/`. Names sort in the order they run;
 * add a new file as `NNNN-what-it-does.ts` and list it here.
 */
import type { Migration, MigrationProvider } from 'kysely';
import { BUILT_IN_PLANS, type Plan } from '../../../accounts/plans.ts';
import * as accountsKeysUsage from './0001-accounts-keys-usage.ts';
import * as listJobs from './0002-list-jobs.ts';
import * as accountPerKey from './0003-account-per-key.ts';
import * as listScheduling from './0005-list-scheduling.ts';
import * as chargeMonth from './0006-charge-month.ts';
import { accountsOwnPlans } from './0007-accounts-own-plans.ts';
import * as integrations from './0008-integrations.ts';
import * as integrationWatches from './0009-integration-watches.ts';
import * as integrationRuns from './0010-integration-runs.ts';
import * as integrationSchedules from './0011-integration-schedules.ts';
import * as feedbackEvents from './0012-feedback-events.ts';
import * as campaignChecks from './0013-campaign-checks.ts';
import * as userTokens from './0014-user-tokens.ts';
import { userOperators } from './0015-user-operators.ts';
import * as listWorkOrder from './0016-list-work-order.ts';
import * as auditLog from './0017-audit-log.ts';
import * as dataProtection from './0018-data-protection.ts';
import * as hubspotWatches from './0019-hubspot-watches.ts';
import * as compactResults from './0020-compact-results.ts';

const fixedMigrations: Readonly<Record<string, Migration>> = {
  '0001-accounts-keys-usage': accountsKeysUsage,
  '0002-list-jobs': listJobs,
  '0003-account-per-key': accountPerKey,
  '0005-list-scheduling': listScheduling,
  '0006-charge-month': chargeMonth,
};

/**
 * The provider handed to Kysely's Migrator; some migrations need the plans in force, and one the
 * operators' emails of the old MAILVET_OPERATORS (marked once, when it runs).
 */
export function migrationProviderFor(
  plans: Readonly<Record<string, Plan>>,
  operators: readonly string[] = [],
): MigrationProvider {
  return {
    getMigrations: () =>
      Promise.resolve({
        ...fixedMigrations,
        '0007-accounts-own-plans': accountsOwnPlans(plans),
        '0008-integrations': integrations,
        '0009-integration-watches': integrationWatches,
        '0010-integration-runs': integrationRuns,
        '0011-integration-schedules': integrationSchedules,
        '0012-feedback-events': feedbackEvents,
        '0013-campaign-checks': campaignChecks,
        '0014-user-tokens': userTokens,
        '0015-user-operators': userOperators(operators),
        '0016-list-work-order': listWorkOrder,
        '0017-audit-log': auditLog,
        '0018-data-protection': dataProtection,
        '0019-hubspot-watches': hubspotWatches,
        '0020-compact-results': compactResults,
      }),
  };
}

/** The provider with the built-in plans. */
export const migrationProvider: MigrationProvider = migrationProviderFor(BUILT_IN_PLANS);

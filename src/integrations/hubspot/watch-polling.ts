/**
 * Watches on private-app HubSpot connections (a private app's events are not the operator's app's):
 * every MAILVET_HUBSPOT_POLL_SECONDS each such watch asks the search API for contacts created since
 * its cursor (`createdate` GT, oldest first; the client keeps to the search API's 4 a second), and
 * each one in the audience is verified and written back as a webhook's would be. Contacts younger
 * than a settling delay are left for the next look: HubSpot's search index takes a few seconds to
 * show a new contact, and one shown late behind a newer one would be skipped for good.
 *
 * Safe on any number of processes: the cursor moves by a conditional update (a process that lost
 * the race stops), and the watch's claim keeps a contact to one verification a day. A contact not
 * verified for want of quota is not looked at again (a run of the audience checks it), as with a
 * webhook's event.
 */
import type { PeriodicTask } from '../../jobs/periodic-tasks.ts';
import type { IntegrationService } from '../integration-service.ts';
import type { IntegrationStore, Member, Watch } from '../ports.ts';
import type { WatchService } from '../watches.ts';
import { POLLING } from './provider.ts';

export interface WatchPollingDeps {
  store: Pick<IntegrationStore, 'watchesWithWebhook' | 'advanceWatchCursor'>;
  integrations: Pick<IntegrationService, 'get' | 'withSession'>;
  watches: Pick<WatchService, 'verifyNewMember'>;
  /** MAILVET_HUBSPOT_POLL_SECONDS, in ms. */
  everyMs: number;
  now?: () => Date;
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

/** Contacts read a search; searches a watch makes in one look at most (a backlog takes several looks). */
const PAGE = 100;
const PAGES_PER_LOOK = 5;
/** How long a new contact is left to settle in HubSpot's search index, at most. */
const SETTLE_MS = 10_000;

/** The periodic task of polled HubSpot watches. */
export function hubspotWatchPollingTask(deps: WatchPollingDeps): PeriodicTask {
  return {
    name: 'hubspot watch polling',
    everyMs: deps.everyMs,
    run: async () => {
      for (const watch of await deps.store.watchesWithWebhook(POLLING)) {
        await pollWatch(deps, watch).catch((error: unknown) =>
          deps.log('warn', 'a HubSpot watch could not look for new contacts', {
            watchId: watch.id,
            err: error,
          }),
        );
      }
    },
  };
}

async function pollWatch(deps: WatchPollingDeps, watch: Watch): Promise<void> {
  const integration = await deps.integrations.get(watch.accountId, watch.integrationId);
  if (integration === null || integration.state !== 'connected' || integration.provider !== 'hubspot') return;
  const now = deps.now?.() ?? new Date();
  const before = new Date(now.getTime() - Math.min(SETTLE_MS, deps.everyMs)).toISOString();
  let cursor = watch.pollCursor ?? watch.createdAt;
  for (let page = 0; page < PAGES_PER_LOOK; page++) {
    const found = await deps.integrations.withSession(
      integration,
      async (session) => (await session.createdMembers?.(watch.audienceId, cursor, PAGE, before)) ?? [],
    );
    if (found.length === 0) return;
    // A full page may end inside a group of contacts created in the same millisecond: the cursor
    // stops before that instant, so the rest of the group is read next time (claims skip the others).
    const last = found[found.length - 1]!.createdAt;
    const boundary =
      found.length < PAGE ? last : (found.findLast((item) => item.createdAt < last)?.createdAt ?? last);
    let reached = cursor;
    for (const { member, createdAt } of found) {
      if (createdAt > boundary) break;
      if (member !== null) await verify(deps, watch, member);
      reached = createdAt;
    }
    if (reached === cursor || !(await deps.store.advanceWatchCursor(watch.id, cursor, reached))) return;
    cursor = reached;
    if (found.length < PAGE) return;
  }
}

/** One contact: a failure is logged and the look goes on, as a webhook's event would be dropped. */
async function verify(deps: WatchPollingDeps, watch: Watch, member: Member): Promise<void> {
  await deps.watches
    .verifyNewMember(watch, member)
    .catch((error: unknown) =>
      deps.log('warn', 'a new HubSpot contact could not be verified', { watchId: watch.id, err: error }),
    );
}

/**
 * Mailchimp's `cleaned` members are its hard bounces: a run records them as the account's
 * hard-bounce feedback at their change time, before its list is verified, so they
 * verify as `bounced` for the account. The change time makes each record's identity: reading the
 * same members again records nothing twice.
 */
import type { FeedbackService } from '../../feedback/feedback-service.ts';
import type { ProviderSession } from '../ports.ts';

/** What an import of an audience's cleaned members did. */
export interface CleanedImport {
  recorded: number;
  duplicates: number;
  skipped: number;
  /** The account's feedback cap stopped it. */
  full: boolean;
}

const PAGE = 1000;

/** Reads the audience's cleaned members (changed since `changedSince`, when given) a page at a time and records them. */
export async function importCleanedMembers(
  session: Pick<ProviderSession, 'members'>,
  feedback: Pick<FeedbackService, 'importHardBounces'>,
  accountId: string,
  audienceId: string,
  changedSince: string | null,
): Promise<CleanedImport> {
  const total: CleanedImport = { recorded: 0, duplicates: 0, skipped: 0, full: false };
  for (let offset = 0; ; offset += PAGE) {
    const page = await session.members(audienceId, {
      statuses: ['cleaned'],
      ...(changedSince !== null && { changedSince }),
      offset,
      count: PAGE,
    });
    const bounces = page.members.map((member) => ({ email: member.email, at: member.lastChanged }));
    const outcome = await feedback.importHardBounces(accountId, bounces);
    total.recorded += outcome.recorded;
    total.duplicates += outcome.duplicates;
    total.skipped += outcome.skipped;
    if (outcome.full) return { ...total, full: true };
    if (page.members.length < PAGE || offset + PAGE >= page.total) return total;
  }
}

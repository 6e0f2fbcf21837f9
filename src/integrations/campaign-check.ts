/**
 * The pre-campaign check: a draft campaign's recipients counted by the category a
 * previous run or watch wrote back (`MV_STATUS`), those never verified optionally verified now on
 * the account's quota and written back in one platform job, and, when asked, the campaign narrowed
 * to a segment that leaves out the invalid (and risky) ones. Without `exclude` nothing on the
 * platform changes but the new results written back. Recipients are read a page at a time and only
 * counted; at most `maxVerifications` are held to verify, for at most `verifyBudgetMs`, since the
 * check answers one HTTP request.
 */
import type { Status } from '../verification/report.ts';
import type {
  Campaign,
  CampaignCheck,
  DraftCampaign,
  LastCampaignCheck,
  Recipient,
} from './campaign-ports.ts';
import { type Category, categoryOf } from './categories.ts';
import type { IntegrationService } from './integration-service.ts';
import type { IntegrationStore, MemberResult, ProviderSession, WriteBackOptions } from './ports.ts';

export type { CampaignCheck } from './campaign-ports.ts';

/** What the check is asked to do. */
export interface CampaignCheckRequest {
  campaignId: string;
  verifyUnverified: boolean;
  /** Leave out invalid ones, or risky and invalid ones; null changes nothing on the platform. */
  exclude: 'invalid' | 'risky' | null;
}

/** Why a campaign cannot be checked: no such campaign, no audience chosen yet, or not a draft. */
export class CampaignCheckRefused extends Error {
  constructor(
    readonly reason: 'unknown_campaign' | 'no_audience' | 'not_draft',
    message: string,
  ) {
    super(message);
    this.name = 'CampaignCheckRefused';
  }
}

/** Bounds of one check; the defaults suit an HTTP request. */
export interface CampaignCheckLimits {
  /** Most recipients verified by one check; the rest stay unverified. */
  maxVerifications: number;
  /** Verification stops taking new addresses after this long, ms. */
  verifyBudgetMs: number;
  /** Verifications at once. */
  concurrency: number;
  /** How long to wait for the platform to finish writing results back, ms. */
  writeWaitMs: number;
  /** Pause between looks at an unfinished write job, ms. */
  writePollMs: number;
}

export const CAMPAIGN_CHECK_LIMITS: CampaignCheckLimits = {
  maxVerifications: 10_000,
  // Reading, verifying and writing together stay well inside the server's 120 s socket timeout.
  verifyBudgetMs: 45_000,
  concurrency: 8,
  writeWaitMs: 20_000,
  writePollMs: 500,
};

export interface CampaignCheckDeps {
  integrations: Pick<IntegrationService, 'get' | 'withSession'>;
  /** Keeps each integration's last check; without it a check is only answered, not kept. */
  store?: Pick<IntegrationStore, 'saveLastCampaignCheck' | 'lastCampaignCheck'>;
  /**
   * Verifies on the account's quota; null when the quota is used up. `ourFailure`: our own resolver
   * failed, so the result is neither counted nor written back.
   */
  verify: (
    accountId: string,
    email: string,
  ) => Promise<{ status: Status; score: number; ourFailure?: boolean } | null>;
  limits?: Partial<CampaignCheckLimits>;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

/** What the check writes for a recipient it verified: fields and category tag, as a watch does. */
const CHECK_WRITES: WriteBackOptions = {
  fields: true,
  tags: true,
  segments: false,
  unsubscribeInvalid: false,
};

/** Up to this many results are written one member at a time; more go in one platform job. */
const FEW = 5;

const LEFT_OUT: Record<'invalid' | 'risky', readonly Category[]> = {
  invalid: ['invalid'],
  risky: ['risky', 'invalid'],
};

export class CampaignCheckService {
  readonly #deps: CampaignCheckDeps;
  readonly #limits: CampaignCheckLimits;

  constructor(deps: CampaignCheckDeps) {
    this.#deps = deps;
    this.#limits = { ...CAMPAIGN_CHECK_LIMITS, ...deps.limits };
  }

  /**
   * The platform's draft campaigns, newest first, to pick one to check; null when there is no such
   * integration. A platform without campaigns (its session has no `draftCampaigns`) has none.
   */
  async drafts(accountId: string, integrationId: string): Promise<DraftCampaign[] | null> {
    const integration = await this.#deps.integrations.get(accountId, integrationId);
    if (integration === null) return null;
    return this.#deps.integrations.withSession(
      integration,
      async (session) => (await session.draftCampaigns?.()) ?? [],
    );
  }

  /** The integration's last check, kept (null when it has none yet); undefined when there is no such integration. */
  async last(accountId: string, integrationId: string): Promise<LastCampaignCheck | null | undefined> {
    if ((await this.#deps.integrations.get(accountId, integrationId)) === null) return undefined;
    return (await this.#deps.store?.lastCampaignCheck(accountId, integrationId)) ?? null;
  }

  /**
   * Checks a campaign through the account's integration, and keeps it as the integration's last
   * check; null when there is no such integration.
   */
  async check(
    accountId: string,
    integrationId: string,
    request: CampaignCheckRequest,
  ): Promise<CampaignCheck | null> {
    const integration = await this.#deps.integrations.get(accountId, integrationId);
    if (integration === null) return null;
    const check = await this.#check(accountId, integration, request);
    await this.#deps.store?.saveLastCampaignCheck({
      accountId,
      integrationId,
      verifyUnverified: request.verifyUnverified,
      checkedAt: this.#now().toISOString(),
      check,
    });
    return check;
  }

  #check(
    accountId: string,
    integration: NonNullable<Awaited<ReturnType<IntegrationService['get']>>>,
    request: CampaignCheckRequest,
  ): Promise<CampaignCheck> {
    return this.#deps.integrations.withSession(integration, async (session) => {
      const campaign = await this.#draft(session, request.campaignId);
      const audienceId = campaign.audienceId as string;
      const byCategory = { valid: 0, risky: 0, invalid: 0, unverified: 0 };
      const toVerify: Recipient[] = [];
      let recipients = 0;
      let overCap = 0;
      for await (const page of session.campaignRecipients(campaign)) {
        for (const recipient of page) {
          recipients += 1;
          if (recipient.status !== null) byCategory[categoryOf(recipient.status)] += 1;
          else if (!request.verifyUnverified) byCategory.unverified += 1;
          else if (toVerify.length < this.#limits.maxVerifications) toVerify.push(recipient);
          else overCap += 1;
        }
      }
      const notes: string[] = [];
      const verified = await this.#verify(accountId, toVerify, notes);
      for (const result of verified.values()) byCategory[categoryOf(result.status)] += 1;
      byCategory.unverified += overCap + toVerify.length - verified.size;
      if (overCap > 0) {
        notes.push(
          `At most ${recipientWords(this.#limits.maxVerifications)} are verified per check: ${overCap} more ${overCap === 1 ? 'was' : 'were'} left unverified (a run verifies a whole audience).`,
        );
      }
      await this.#writeBack(session, audienceId, [...verified.values()], notes);
      const excluded =
        request.exclude === null
          ? null
          : await session.excludeFromCampaign(campaign, {
              segmentName: segmentName(campaign, request.exclude),
              categories: LEFT_OUT[request.exclude],
              excludes: (recipient) => {
                const status = verified.get(recipient.id)?.status ?? recipient.status;
                return status !== null && LEFT_OUT[request.exclude!].includes(categoryOf(status));
              },
            });
      return {
        campaignId: campaign.id,
        title: campaign.title,
        audienceId,
        recipients,
        byCategory,
        verified: verified.size,
        excluded,
        message: notes.length === 0 ? null : notes.join(' '),
      };
    });
  }

  async #draft(session: ProviderSession, campaignId: string): Promise<Campaign> {
    const campaign = await session.campaign(campaignId);
    if (campaign === null) throw new CampaignCheckRefused('unknown_campaign', 'No such campaign');
    if (!campaign.draft) {
      throw new CampaignCheckRefused(
        'not_draft',
        `The campaign is not a draft (its status is "${campaign.state}"): it was already sent or scheduled, so its recipients can no longer be checked or changed`,
      );
    }
    if (campaign.audienceId === null)
      throw new CampaignCheckRefused('no_audience', 'The campaign has no audience chosen yet');
    return campaign;
  }

  /** Verifies the recipients, a few at once, until done, out of quota or out of time; results by member id. */
  async #verify(accountId: string, recipients: readonly Recipient[], notes: string[]) {
    const results = new Map<string, MemberResult>();
    const deadline = this.#now().getTime() + this.#limits.verifyBudgetMs;
    let next = 0;
    let quotaOut = false;
    let timeOut = false;
    let failed = 0;
    const worker = async () => {
      while (next < recipients.length && !quotaOut) {
        if (this.#now().getTime() >= deadline) {
          timeOut = true;
          return;
        }
        const recipient = recipients[next++]!;
        const outcome = await this.#deps.verify(accountId, recipient.email);
        if (outcome === null) {
          quotaOut = true;
          return;
        }
        if (outcome.ourFailure === true) {
          failed += 1;
          continue;
        }
        const checkedOn = this.#now().toISOString().slice(0, 10);
        const { status, score } = outcome;
        results.set(recipient.id, { memberId: recipient.id, status, score, checkedOn });
      }
    };
    const workers = Math.min(this.#limits.concurrency, recipients.length);
    await Promise.all(Array.from({ length: workers }, worker));
    const left = recipients.length - results.size - failed;
    if (failed > 0) {
      notes.push(
        `${recipientWords(failed)} could not be verified (our DNS resolver failed; not charged): check again later.`,
      );
    }
    if (quotaOut) {
      notes.push(
        `The monthly verification quota ran out: ${recipientWords(left)} ${left === 1 ? 'was' : 'were'} left unverified.`,
      );
    } else if (timeOut) {
      notes.push(
        `Verification stopped after ${Math.round(this.#limits.verifyBudgetMs / 1000)} s: ${recipientWords(left)} ${left === 1 ? 'was' : 'were'} left unverified (check again, or run the audience).`,
      );
    }
    return results;
  }

  /** Writes the new results: one by one when few, else in one platform job waited for. */
  async #writeBack(
    session: ProviderSession,
    audienceId: string,
    results: readonly MemberResult[],
    notes: string[],
  ): Promise<void> {
    if (results.length === 0) return;
    await session.prepareWriteBack(audienceId, CHECK_WRITES);
    if (results.length <= FEW) {
      for (const result of results) await session.writeMember(audienceId, result, CHECK_WRITES);
      return;
    }
    const job = await session.submitWrites(audienceId, results, CHECK_WRITES);
    const until = this.#now().getTime() + this.#limits.writeWaitMs;
    for (;;) {
      const outcome = await session.writeOutcome(job);
      if (outcome !== null) {
        if (outcome.errors.length > 0)
          notes.push(
            `${outcome.errors.length} ${outcome.errors.length === 1 ? 'result' : 'results'} could not be written back to the platform.`,
          );
        return;
      }
      if (this.#now().getTime() >= until) {
        notes.push('The platform was still writing the results back when the check answered.');
        return;
      }
      await (this.#deps.sleep ?? sleep)(this.#limits.writePollMs);
    }
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }
}

/** `1 recipient`, `2 recipients`: the notes are read by people. */
function recipientWords(count: number): string {
  return `${count} ${count === 1 ? 'recipient' : 'recipients'}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Mailvet: <title> without invalid|risky`, the title shortened so the name stays short. */
export function segmentName(campaign: Pick<Campaign, 'id' | 'title'>, exclude: 'invalid' | 'risky'): string {
  const title = campaign.title.trim() === '' ? campaign.id : campaign.title.trim();
  const short = title.length > 60 ? `${title.slice(0, 59)}…` : title;
  return `Mailvet: ${short} without ${exclude}`;
}

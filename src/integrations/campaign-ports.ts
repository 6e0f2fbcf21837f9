/**
 * What the pre-campaign check asks of a platform, beside `ProviderSession`'s other
 * methods: a campaign, its recipients, and narrowing them to a segment that leaves some out.
 */
import type { Status } from '../verification/report.ts';
import type { Category } from './categories.ts';

/** A draft campaign offered for the check: enough to pick it out. */
export interface DraftCampaign {
  id: string;
  title: string;
  /** The audience it goes to; null when none was chosen yet (it cannot be checked then). */
  audienceId: string | null;
  audienceName: string | null;
  /** Recipients as the platform counts them now. */
  recipientCount: number;
  /** When it was made; null when the platform does not say. */
  createdAt: string | null;
}

/** What the check found (and did). */
export interface CampaignCheck {
  campaignId: string;
  title: string;
  audienceId: string;
  recipients: number;
  byCategory: Record<Category | 'unverified', number>;
  /** Recipients verified by this check. */
  verified: number;
  excluded: ExcludedSegment | null;
  /** What was left undone and why (quota, bounds, write errors); null when nothing was. */
  message: string | null;
}

/**
 * An integration's last check, kept so its owner finds it again (a reload, another device). The
 * next check of the integration replaces it.
 */
export interface LastCampaignCheck {
  accountId: string;
  integrationId: string;
  /** Whether it verified unverified recipients: an exclusion asked afterwards asks the same. */
  verifyUnverified: boolean;
  checkedAt: string;
  check: CampaignCheck;
}

/** A campaign as the check reads it. */
export interface Campaign {
  id: string;
  title: string;
  /** The platform's word for its state (Mailchimp: `save`, `schedule`, `sending`, `sent`...). */
  state: string;
  /** Whether it is a draft: only a draft's recipients may still change. */
  draft: boolean;
  /** The audience it goes to; null when none was chosen yet. */
  audienceId: string | null;
  /** The part of the audience it goes to; null for all the audience's subscribed members. */
  segment: CampaignSegment | null;
}

/** A campaign's segment, as the platform states it (the domain passes it back untouched). */
export interface CampaignSegment {
  /** The platform's saved (or static) segment; null for conditions of the campaign's own. */
  savedSegmentId: string | null;
  match: 'all' | 'any';
  conditions: readonly unknown[];
}

/** A recipient of a campaign, with the status a previous verification wrote back. */
export interface Recipient {
  /** The platform's member id. */
  id: string;
  email: string;
  /** `MV_STATUS`: the status last written back; null when never verified (or not a status). */
  status: Status | null;
}

/** What to leave out of a campaign's recipients. */
export interface Exclusion {
  /** The segment's name: one of that name is updated rather than another made. */
  segmentName: string;
  /** Members whose category tag is one of these are left out (the platform's own rule for later). */
  categories: readonly Category[];
  /** Whether a recipient is left out now (its category as the check found it). */
  excludes(recipient: Recipient): boolean;
}

/** The segment the campaign now goes to. */
export interface ExcludedSegment {
  id: string;
  name: string;
  /** Members in it, as the platform counts them. */
  members: number;
}

/**
 * A segment of the name asked for exists but cannot be made to fit (a saved segment with
 * conditions where a fixed list of members is needed): the owner renames or removes it.
 */
export class SegmentNameTaken extends Error {
  constructor(readonly segmentName: string) {
    super(
      `A segment named "${segmentName}" already exists with conditions that cannot express these recipients: rename or delete it on the platform, then check again`,
    );
    this.name = 'SegmentNameTaken';
  }
}

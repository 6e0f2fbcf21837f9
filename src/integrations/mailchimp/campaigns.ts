/**
 * A Mailchimp campaign for the pre-campaign check: `GET /campaigns/{id}` (title,
 * state, audience, `recipients.segment_opts`), and its recipients read 1,000 a page with only the
 * fields the check needs: the audience's subscribed members, or a saved (or static) segment's
 * members. Mailchimp reads members by conditions only through a saved segment, so a campaign with
 * conditions of its own is read through a temporary saved segment of the same conditions, deleted
 * once read.
 */
import { randomUUID } from 'node:crypto';
import type { Status } from '../../verification/report.ts';
import { STATUS_NAMES } from '../../verification/report.ts';
import type { Campaign, CampaignSegment, DraftCampaign, Recipient } from '../campaign-ports.ts';
import { type MailchimpClient, MailchimpError } from './client.ts';

/** Members read per request: Mailchimp's most. */
const PAGE = 1000;

interface CampaignAnswer {
  id: string;
  status: string;
  settings?: { title?: string };
  recipients?: {
    list_id?: string;
    segment_opts?: { saved_segment_id?: number | string; match?: string; conditions?: unknown[] };
  };
}

interface MembersAnswer {
  members: Array<{
    id: string;
    email_address: string;
    status: string;
    merge_fields?: { MV_STATUS?: unknown };
  }>;
  total_items: number;
}

const CAMPAIGN_FIELDS = 'id,status,settings.title,recipients.list_id,recipients.segment_opts';

/** Only what the check reads of a recipient: fewer bytes for large audiences. */
const RECIPIENT_FIELDS =
  'members.id,members.email_address,members.status,members.merge_fields.MV_STATUS,total_items';

const STATUSES = new Set<string>(STATUS_NAMES);

interface DraftsAnswer {
  campaigns: Array<{
    id: string;
    create_time?: string;
    settings?: { title?: string };
    recipients?: { list_id?: string; list_name?: string; recipient_count?: number };
  }>;
}

const DRAFT_FIELDS = [
  'campaigns.id',
  'campaigns.create_time',
  'campaigns.settings.title',
  'campaigns.recipients.list_id',
  'campaigns.recipients.list_name',
  'campaigns.recipients.recipient_count',
].join(',');

/**
 * The account's drafts (status `save`), newest first: one page of Mailchimp's most, 1,000, which
 * is more drafts than anyone picks from a list; only the fields the picker shows.
 */
export async function readDrafts(client: MailchimpClient): Promise<DraftCampaign[]> {
  const answer = await client.get<DraftsAnswer>('/campaigns', {
    status: 'save',
    count: PAGE,
    sort_field: 'create_time',
    sort_dir: 'DESC',
    fields: DRAFT_FIELDS,
  });
  const drafts = answer.campaigns.map((campaign) => {
    const listId = campaign.recipients?.list_id ?? '';
    return {
      id: campaign.id,
      title: campaign.settings?.title ?? '',
      audienceId: listId === '' ? null : listId,
      audienceName: listId === '' ? null : (campaign.recipients?.list_name ?? null),
      recipientCount: campaign.recipients?.recipient_count ?? 0,
      createdAt: instantOf(campaign.create_time),
    };
  });
  // Newest first whether or not the sort was applied (ISO instants compare as text).
  return drafts.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

/** Mailchimp's `2015-10-21T15:41:36+00:00` as an ISO instant; null when blank or not a time. */
function instantOf(value: string | undefined): string | null {
  const time = value === undefined || value === '' ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** The campaign; null when Mailchimp has none of that id. */
export async function readCampaign(client: MailchimpClient, campaignId: string): Promise<Campaign | null> {
  let answer: CampaignAnswer;
  try {
    answer = await client.get<CampaignAnswer>(`/campaigns/${encodeURIComponent(campaignId)}`, {
      fields: CAMPAIGN_FIELDS,
    });
  } catch (error) {
    if (error instanceof MailchimpError && error.status === 404) return null;
    throw error;
  }
  const listId = answer.recipients?.list_id ?? '';
  return {
    id: answer.id,
    title: answer.settings?.title ?? '',
    state: answer.status,
    draft: answer.status === 'save',
    audienceId: listId === '' ? null : listId,
    segment: segmentOf(answer.recipients?.segment_opts),
  };
}

function segmentOf(opts: NonNullable<CampaignAnswer['recipients']>['segment_opts']): CampaignSegment | null {
  if (opts === undefined) return null;
  const saved = opts.saved_segment_id;
  const conditions = Array.isArray(opts.conditions) ? opts.conditions : [];
  const match = opts.match === 'any' ? 'any' : 'all';
  // Mailchimp may answer an unsegmented campaign with an empty segment_opts (id 0, no conditions).
  if (saved !== undefined && saved !== '' && Number(saved) !== 0) {
    return { savedSegmentId: String(saved), match, conditions };
  }
  return conditions.length === 0 ? null : { savedSegmentId: null, match, conditions };
}

/** The campaign's recipients, a page at a time. */
export async function* readRecipients(
  client: MailchimpClient,
  campaign: Campaign,
): AsyncGenerator<Recipient[]> {
  if (campaign.audienceId === null) return;
  const list = `/lists/${encodeURIComponent(campaign.audienceId)}`;
  const { segment } = campaign;
  if (segment === null) {
    yield* pages(client, `${list}/members`, { status: 'subscribed' });
  } else if (segment.savedSegmentId !== null) {
    yield* pages(client, `${list}/segments/${encodeURIComponent(segment.savedSegmentId)}/members`, {});
  } else {
    const temporary = await client.post<{ id: number }>(`${list}/segments`, {
      name: `Mailvet check ${randomUUID()}`,
      options: { match: segment.match, conditions: segment.conditions },
    });
    try {
      yield* pages(client, `${list}/segments/${temporary.id}/members`, {});
    } finally {
      await client.delete(`${list}/segments/${temporary.id}`).catch((error: unknown) => {
        if (!(error instanceof MailchimpError && error.status === 404)) throw error;
      });
    }
  }
}

async function* pages(
  client: MailchimpClient,
  path: string,
  query: Record<string, string>,
): AsyncGenerator<Recipient[]> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.get<MembersAnswer>(path, {
      ...query,
      count: PAGE,
      offset,
      fields: RECIPIENT_FIELDS,
    });
    // Only subscribed members receive a campaign, whatever a segment holds.
    const recipients = page.members
      .filter((member) => member.status === 'subscribed')
      .map((member) => ({
        id: member.id,
        email: member.email_address,
        status: statusOf(member.merge_fields?.MV_STATUS),
      }));
    if (recipients.length > 0) yield recipients;
    if (page.members.length < PAGE || offset + PAGE >= page.total_items) return;
  }
}

/** `MV_STATUS` as a status name, or null when blank or anything else. */
function statusOf(value: unknown): Status | null {
  return typeof value === 'string' && STATUSES.has(value) ? (value as Status) : null;
}

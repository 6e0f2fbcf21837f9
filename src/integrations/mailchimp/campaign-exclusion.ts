/**
 * Narrowing a draft campaign to a segment without some categories, in the segment's
 * own terms where it can be: a saved segment whose conditions are the campaign's (when they all
 * must hold: `match: all`, or a single condition; a tag becomes `static_is` on it) plus `static_not`
 * on each left-out category's tag, so contacts tagged later are left out too. Conditions that need
 * only one to hold cannot take an "and not" beside them: the segment is then a static one of
 * exactly the recipients kept, filled 500 addresses a request. A segment of that name is updated,
 * never made twice, and the campaign's `saved_segment_id` then points at it.
 */
import type { Campaign, ExcludedSegment, Exclusion } from '../campaign-ports.ts';
import { SegmentNameTaken } from '../campaign-ports.ts';
import type { Category } from '../categories.ts';
import { readRecipients } from './campaigns.ts';
import type { MailchimpClient } from './client.ts';
import { CATEGORY_TAGS } from './write-back.ts';

/** Mailchimp's most addresses per batch add or remove of a static segment. */
const STATIC_BATCH = 500;
const PAGE = 1000;

interface SegmentAnswer {
  id: number;
  name: string;
  type: string;
  member_count?: number;
  options?: { match?: string; conditions?: unknown[] };
}

type Condition = Record<string, unknown>;

const tagCondition = (tagId: number, op: 'static_is' | 'static_not'): Condition => ({
  condition_type: 'StaticSegment',
  field: 'static_segment',
  op,
  value: tagId,
});

/** Points the campaign at a segment of its recipients without the excluded ones; that segment. */
export async function excludeFromCampaign(
  client: MailchimpClient,
  campaign: Campaign,
  exclusion: Exclusion,
): Promise<ExcludedSegment> {
  if (campaign.audienceId === null) throw new RangeError('the campaign has no audience');
  const list = `/lists/${encodeURIComponent(campaign.audienceId)}`;
  const segments = await allSegments(client, list);
  const tags = await categoryTags(client, list, segments, exclusion.categories);
  const existing = segments.find((segment) => segment.name === exclusion.segmentName) ?? null;
  const base = baseConditions(campaign, segments, new Set(tags.values()));
  let segment: ExcludedSegment;
  if (base !== null && existing?.type !== 'static') {
    const left = exclusion.categories.map((category) => tagCondition(tags.get(category)!, 'static_not'));
    const body = {
      name: exclusion.segmentName,
      options: { match: 'all', conditions: unique([...base, ...left]) },
    };
    const saved = existing
      ? await client.patch<SegmentAnswer>(`${list}/segments/${existing.id}`, body)
      : await client.post<SegmentAnswer>(`${list}/segments`, body);
    segment = { id: String(saved.id), name: saved.name, members: saved.member_count ?? 0 };
  } else {
    if (existing !== null && existing.type !== 'static') throw new SegmentNameTaken(exclusion.segmentName);
    segment = await staticSegment(client, list, campaign, existing, exclusion);
  }
  await client.patch(`/campaigns/${encodeURIComponent(campaign.id)}`, {
    // The reference marks `settings` required on this PATCH: the title is sent back unchanged.
    settings: campaign.title === '' ? {} : { title: campaign.title },
    recipients: { list_id: campaign.audienceId, segment_opts: { saved_segment_id: Number(segment.id) } },
  });
  return segment;
}

/** The conditions the campaign's recipients meet, without Mailvet's tag conditions; null when they need `any`. */
function baseConditions(
  campaign: Campaign,
  segments: readonly SegmentAnswer[],
  mailvetTags: ReadonlySet<number>,
): Condition[] | null {
  const { segment } = campaign;
  let conditions: readonly unknown[];
  if (segment === null) conditions = [];
  else if (segment.savedSegmentId === null) {
    if (segment.match === 'any' && segment.conditions.length > 1) return null;
    conditions = segment.conditions;
  } else {
    const saved = segments.find((each) => String(each.id) === segment.savedSegmentId);
    if (saved === undefined) return null;
    if (saved.type === 'static') conditions = [tagCondition(saved.id, 'static_is')];
    else {
      const own = saved.options?.conditions ?? [];
      if (saved.options?.match === 'any' && own.length > 1) return null;
      conditions = own;
    }
  }
  return (conditions as Condition[]).filter(
    (condition) =>
      !(
        condition.condition_type === 'StaticSegment' &&
        condition.op === 'static_not' &&
        mailvetTags.has(Number(condition.value))
      ),
  );
}

function unique(conditions: readonly Condition[]): Condition[] {
  const seen = new Set<string>();
  return conditions.filter((condition) => {
    const key = JSON.stringify(condition);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A static segment of exactly the recipients kept. When the campaign already goes to that very
 * segment, the left-out ones are removed from it; otherwise it is emptied (or made) and filled.
 */
async function staticSegment(
  client: MailchimpClient,
  list: string,
  campaign: Campaign,
  existing: SegmentAnswer | null,
  exclusion: Exclusion,
): Promise<ExcludedSegment> {
  const itself = existing !== null && campaign.segment?.savedSegmentId === String(existing.id);
  const target = itself
    ? existing
    : existing
      ? await client.patch<SegmentAnswer>(`${list}/segments/${existing.id}`, {
          name: exclusion.segmentName,
          static_segment: [],
        })
      : await client.post<SegmentAnswer>(`${list}/segments`, {
          name: exclusion.segmentName,
          static_segment: [],
        });
  const path = `${list}/segments/${target.id}`;
  let kept = 0;
  const leaving: string[] = [];
  let adding: string[] = [];
  for await (const page of readRecipients(client, campaign)) {
    for (const recipient of page) {
      if (exclusion.excludes(recipient)) {
        if (itself) leaving.push(recipient.email);
        continue;
      }
      kept += 1;
      if (itself) continue;
      adding.push(recipient.email);
      if (adding.length === STATIC_BATCH) {
        await client.post(path, { members_to_add: adding });
        adding = [];
      }
    }
  }
  if (adding.length > 0) await client.post(path, { members_to_add: adding });
  // Removed only once read: removing while paging through the same segment would shift its pages.
  for (let start = 0; start < leaving.length; start += STATIC_BATCH) {
    await client.post(path, { members_to_remove: leaving.slice(start, start + STATIC_BATCH) });
  }
  return { id: String(target.id), name: exclusion.segmentName, members: kept };
}

/** Every segment of the audience (saved, static and the rest), with its conditions. */
async function allSegments(client: MailchimpClient, list: string): Promise<SegmentAnswer[]> {
  const found: SegmentAnswer[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.get<{ segments: SegmentAnswer[]; total_items: number }>(`${list}/segments`, {
      count: PAGE,
      offset,
      fields: 'segments.id,segments.name,segments.type,segments.options,total_items',
    });
    found.push(...page.segments);
    if (page.segments.length < PAGE || found.length >= page.total_items) return found;
  }
}

/**
 * The tag of each category left out, made (empty) when no contact carries it yet: a condition
 * needs the tag's id, and the segment must leave out contacts tagged later too.
 */
async function categoryTags(
  client: MailchimpClient,
  list: string,
  segments: SegmentAnswer[],
  categories: readonly Category[],
): Promise<Map<Category, number>> {
  const tags = new Map<Category, number>();
  for (const [category, name] of Object.entries(CATEGORY_TAGS) as Array<[Category, string]>) {
    let tag = segments.find((segment) => segment.type === 'static' && segment.name.toLowerCase() === name);
    if (tag === undefined && categories.includes(category)) {
      tag = await client.post<SegmentAnswer>(`${list}/segments`, { name, static_segment: [] });
      segments.push(tag);
    }
    if (tag !== undefined) tags.set(category, tag.id);
  }
  return tags;
}

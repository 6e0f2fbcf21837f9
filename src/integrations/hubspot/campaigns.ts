/**
 * A HubSpot marketing email for the pre-campaign check (`/marketing/v3/emails/{id}`): its
 * recipients are the contacts of the lists in `to.contactIlsLists.include` less those in
 * `.exclude`, opted-out contacts left out; an exclusion is a MANUAL list of the contacts to leave
 * out, added to the email's excluded lists.
 */
import type { Status } from '../../verification/report.ts';
import { STATUS_NAMES } from '../../verification/report.ts';
import type { Campaign, DraftCampaign, ExcludedSegment, Exclusion, Recipient } from '../campaign-ports.ts';
import { type HubSpotClient, HubSpotError } from './client.ts';
import { contactPages } from './contacts.ts';

interface EmailAnswer {
  id: string;
  name?: string;
  state?: string;
  createdAt?: string;
  to?: { contactIlsLists?: { include?: Array<string | number>; exclude?: Array<string | number> } };
}

const STATUSES = new Set<string>(STATUS_NAMES);
const RECIPIENT_PROPERTIES = ['email', 'hs_email_optout', 'mailvet_status'];

function listsOf(email: EmailAnswer) {
  const lists = email.to?.contactIlsLists;
  return { include: (lists?.include ?? []).map(String), exclude: (lists?.exclude ?? []).map(String) };
}

/** The marketing email; null when the portal has none of that id. */
export async function readEmail(client: HubSpotClient, id: string): Promise<Campaign | null> {
  let email: EmailAnswer;
  try {
    email = await client.get<EmailAnswer>(`/marketing/v3/emails/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error instanceof HubSpotError && error.status === 404) return null;
    throw error;
  }
  const { include, exclude } = listsOf(email);
  return {
    id: email.id,
    title: email.name ?? '',
    state: email.state ?? '',
    draft: email.state === 'DRAFT',
    audienceId: include.length === 0 ? null : include.join(','),
    segment: { savedSegmentId: null, match: 'all', conditions: [{ include, exclude }] },
  };
}

/** Draft marketing emails, newest first (one page). */
export async function readDraftEmails(client: HubSpotClient): Promise<DraftCampaign[]> {
  const answer = await client.get<{ results: EmailAnswer[] }>('/marketing/v3/emails', { limit: 100 });
  return answer.results
    .filter((email) => email.state === 'DRAFT')
    .map((email) => {
      const { include } = listsOf(email);
      return {
        id: email.id,
        title: email.name ?? '',
        audienceId: include.length === 0 ? null : include.join(','),
        audienceName: null,
        recipientCount: 0,
        createdAt: email.createdAt ?? null,
      };
    })
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

function listsOfCampaign(campaign: Campaign) {
  const condition = campaign.segment?.conditions[0] as { include?: string[]; exclude?: string[] } | undefined;
  return { include: condition?.include ?? [], exclude: condition?.exclude ?? [] };
}

/** The email's recipients a page at a time, each contact once. */
export async function* readEmailRecipients(
  client: HubSpotClient,
  campaign: Campaign,
): AsyncGenerator<Recipient[]> {
  const { include, exclude } = listsOfCampaign(campaign);
  const left = new Set<string>();
  for (const listId of exclude) {
    for await (const page of contactPages(client, listId, ['email']))
      for (const contact of page) left.add(contact.id);
  }
  const seen = new Set<string>();
  for (const listId of include) {
    for await (const page of contactPages(client, listId, RECIPIENT_PROPERTIES)) {
      const recipients: Recipient[] = [];
      for (const contact of page) {
        const email = contact.properties.email?.trim();
        if (
          !email ||
          left.has(contact.id) ||
          seen.has(contact.id) ||
          contact.properties.hs_email_optout === 'true'
        )
          continue;
        seen.add(contact.id);
        const status = contact.properties.mailvet_status ?? '';
        recipients.push({ id: contact.id, email, status: STATUSES.has(status) ? (status as Status) : null });
      }
      if (recipients.length > 0) yield recipients;
    }
  }
}

interface ListAnswer {
  list: { listId: string; name: string; additionalProperties?: { hs_list_size?: string } };
}

/** Builds (or adds to) the MANUAL list of the contacts to leave out, and excludes it from the email. */
export async function excludeFromEmail(
  client: HubSpotClient,
  campaign: Campaign,
  exclusion: Exclusion,
): Promise<ExcludedSegment> {
  const name = `Mailvet excluded: ${campaign.title}`.slice(0, 250);
  const found = await client.post<{ lists: Array<ListAnswer['list'] & { processingType?: string }> }>(
    '/crm/v3/lists/search',
    {
      query: name,
      count: 100,
    },
  );
  let list = found.lists.find((each) => each.name === name && each.processingType === 'MANUAL');
  list ??= (
    await client.post<ListAnswer>('/crm/v3/lists', { name, objectTypeId: '0-1', processingType: 'MANUAL' })
  ).list;
  const left: string[] = [];
  for await (const page of readEmailRecipients(client, campaign)) {
    for (const recipient of page) if (exclusion.excludes(recipient)) left.push(recipient.id);
  }
  for (let start = 0; start < left.length; start += 10_000) {
    await client.put(`/crm/v3/lists/${list.listId}/memberships/add`, left.slice(start, start + 10_000));
  }
  const { exclude } = listsOfCampaign(campaign);
  if (!exclude.includes(list.listId)) {
    const { include } = listsOfCampaign(campaign);
    await client.patch(`/marketing/v3/emails/${encodeURIComponent(campaign.id)}`, {
      to: { contactIlsLists: { include, exclude: [...exclude, list.listId] } },
    });
  }
  const size = (await client.get<ListAnswer>(`/crm/v3/lists/${list.listId}`)).list.additionalProperties
    ?.hs_list_size;
  return { id: list.listId, name, members: Number(size ?? left.length) };
}

/**
 * New contacts for a watch: one read by id (an app event names only the contact), or the contacts
 * created since a polled watch's last look, by the search API (`createdate` GT, oldest first; the
 * client keeps to the search API's own 4 a second). A watch on a list takes only its members:
 * each contact's list memberships are read (`/crm/v3/lists/records/0-1/{id}/memberships`).
 */
import type { Member } from '../ports.ts';
import { type HubSpotClient, HubSpotError } from './client.ts';
import { ALL_CONTACTS, type ContactRecord, MEMBER_PROPERTIES, readContacts, toMember } from './contacts.ts';

/** Whether the contact is in the audience (every contact is in "All contacts"). */
async function inAudience(client: HubSpotClient, audienceId: string, contactId: string): Promise<boolean> {
  if (audienceId === ALL_CONTACTS) return true;
  try {
    const memberships = await client.get<{ results: Array<{ listId: string | number }> }>(
      `/crm/v3/lists/records/0-1/${encodeURIComponent(contactId)}/memberships`,
    );
    return memberships.results.some((membership) => String(membership.listId) === audienceId);
  } catch (error) {
    if (error instanceof HubSpotError && error.status === 404) return false;
    throw error;
  }
}

/** The contact, read back from HubSpot, when it has an address and is in the audience; else null. */
export async function watchedContact(
  client: HubSpotClient,
  audienceId: string,
  contactId: string,
): Promise<Member | null> {
  if (!/^\d{1,20}$/.test(contactId)) return null;
  const [record] = await readContacts(client, [contactId]);
  if (record === undefined) return null;
  const member = toMember(record);
  if (member === null || !(await inAudience(client, audienceId, contactId))) return null;
  return member;
}

/**
 * Contacts created after `after` (ISO-8601) and before `before`, oldest first, at most `limit`
 * (HubSpot's search page is 200 at most): each with its creation instant, and the member when it
 * has an address and is in the audience (else null: the cursor still moves past it).
 */
export async function createdContacts(
  client: HubSpotClient,
  audienceId: string,
  after: string,
  limit: number,
  before?: string,
): Promise<Array<{ member: Member | null; createdAt: string }>> {
  const filters = [{ propertyName: 'createdate', operator: 'GT', value: String(Date.parse(after)) }];
  if (before !== undefined)
    filters.push({ propertyName: 'createdate', operator: 'LTE', value: String(Date.parse(before)) });
  const found = await client.post<{ results: ContactRecord[] }>('/crm/v3/objects/contacts/search', {
    filterGroups: [{ filters }],
    sorts: [{ propertyName: 'createdate', direction: 'ASCENDING' }],
    properties: [...MEMBER_PROPERTIES, 'createdate'],
    limit: Math.min(limit, 200),
  });
  const created = [];
  for (const record of found.results) {
    const createdAt = instant(record.properties.createdate);
    if (createdAt === null) continue;
    const member = toMember(record);
    const counted = member !== null && (await inAudience(client, audienceId, record.id));
    created.push({ member: counted ? member : null, createdAt });
  }
  return created;
}

/** HubSpot gives `createdate` as ISO-8601 text (or epoch ms where written so). */
function instant(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

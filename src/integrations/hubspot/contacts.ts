/**
 * Reading contacts for a run: all contacts (`GET /crm/v3/objects/contacts`, 100 a page) or a
 * list's (its memberships 100 a page, each page read by one `batch/read`), with only the
 * properties a run needs. HubSpot pages by cursor, the run by offset: a stream per query keeps its
 * cursor and hands out pages of exactly the count asked, so the run's arithmetic holds.
 */
import type { Member, MemberPage, MemberQuery } from '../ports.ts';
import type { HubSpotClient } from './client.ts';

export const ALL_CONTACTS = 'all';
/** Records per page and per batch request: HubSpot's most. */
export const BATCH = 100;
export const MEMBER_PROPERTIES = ['email', 'hs_email_optout', 'lastmodifieddate', 'mailvet_checked'];

export interface ContactRecord {
  id: string;
  properties: Record<string, string | null | undefined>;
}

interface Page<T> {
  results: T[];
  paging?: { next?: { after?: string } };
}

/** A contact as a run sees it; null for one without an address. */
export function toMember(record: ContactRecord): Member | null {
  const email = record.properties.email?.trim();
  if (!email) return null;
  return {
    id: record.id,
    email,
    status: record.properties.hs_email_optout === 'true' ? 'unsubscribed' : 'subscribed',
    lastChanged: record.properties.lastmodifieddate ?? new Date(0).toISOString(),
    checkedOn: dayOf(record.properties.mailvet_checked),
  };
}

/** `mailvet_checked` as a day: HubSpot reads a date back as `YYYY-MM-DD`, or epoch ms when written so. */
function dayOf(value: string | null | undefined): string | null {
  if (!value) return null;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return value.slice(0, 10);
  const ms = Number(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : null;
}

/** The contacts of an audience, one HubSpot page at a time. */
export async function* contactPages(
  client: HubSpotClient,
  audienceId: string,
  properties = MEMBER_PROPERTIES,
) {
  let after: string | undefined;
  do {
    if (audienceId === ALL_CONTACTS) {
      const page = await client.get<Page<ContactRecord>>('/crm/v3/objects/contacts', {
        limit: BATCH,
        after,
        properties: properties.join(','),
        archived: false,
      });
      yield page.results;
      after = page.paging?.next?.after;
    } else {
      const page = await client.get<Page<{ recordId: string }>>(
        `/crm/v3/lists/${encodeURIComponent(audienceId)}/memberships`,
        { limit: BATCH, after },
      );
      yield await readContacts(
        client,
        page.results.map((each) => each.recordId),
        properties,
      );
      after = page.paging?.next?.after;
    }
  } while (after !== undefined);
}

/** Contacts by id, 100 a request; ids HubSpot no longer has are left out. */
export async function readContacts(
  client: HubSpotClient,
  ids: readonly string[],
  properties = MEMBER_PROPERTIES,
) {
  const contacts: ContactRecord[] = [];
  for (let start = 0; start < ids.length; start += BATCH) {
    const answer = await client.post<Page<ContactRecord>>('/crm/v3/objects/contacts/batch/read', {
      properties,
      inputs: ids.slice(start, start + BATCH).map((id) => ({ id })),
    });
    contacts.push(...answer.results);
  }
  return contacts;
}

interface Stream {
  delivered: number;
  buffer: Member[];
  source: AsyncGenerator<ContactRecord[]>;
  done: boolean;
}

/** Offset pages over cursor pages, for one session. */
export class MemberStreams {
  readonly #streams = new Map<string, Stream>();

  constructor(readonly client: HubSpotClient) {}

  async page(audienceId: string, query: MemberQuery): Promise<MemberPage> {
    // HubSpot's contacts are subscribed or opted out, nothing else (no `cleaned`, `pending`...):
    // asking for other states reads nothing.
    if (!query.statuses.some((status) => status === 'subscribed' || status === 'unsubscribed'))
      return { members: [], total: 0 };
    const key = `${audienceId}|${query.statuses.join(',')}|${query.changedSince ?? ''}`;
    let stream = this.#streams.get(key);
    if (stream === undefined || stream.delivered !== query.offset) {
      // Not where the last page ended: read again from the start and skip what was asked to.
      stream = { delivered: 0, buffer: [], source: contactPages(this.client, audienceId), done: false };
      this.#streams.set(key, stream);
      await this.#fill(stream, query, query.offset);
      stream.buffer.splice(0, query.offset);
      stream.delivered = query.offset;
    }
    await this.#fill(stream, query, query.count);
    const members = stream.buffer.splice(0, query.count);
    stream.delivered += members.length;
    const more = !stream.done || stream.buffer.length > 0;
    return { members, total: stream.delivered + (more ? 1 : 0) };
  }

  async #fill(stream: Stream, query: MemberQuery, count: number): Promise<void> {
    const since = query.changedSince === undefined ? null : Date.parse(query.changedSince);
    while (!stream.done && stream.buffer.length < count) {
      const next = await stream.source.next();
      if (next.done) {
        stream.done = true;
        break;
      }
      for (const record of next.value) {
        const member = toMember(record);
        if (member === null || !query.statuses.includes(member.status)) continue;
        if (since !== null && Date.parse(member.lastChanged) < since) continue;
        stream.buffer.push(member);
      }
    }
  }
}

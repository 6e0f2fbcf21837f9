/**
 * Writing results to contacts: `batch/update` of 100 contacts a request (HubSpot's batches are
 * synchronous, so a "job" is done when submitted: its id carries its outcome, and a run resumed
 * in another process reads it back from the id), invalid contacts opted out of all email when
 * asked, and the property group, properties and score lists created when missing.
 */
import { categoryOf } from '../categories.ts';
import type { MemberResult, WriteBackOptions, WriteOutcome } from '../ports.ts';
import { type HubSpotClient, HubSpotError } from './client.ts';
import { BATCH, readContacts } from './contacts.ts';
import { PROPERTIES, PROPERTY_GROUP, resultProperties, SCORE_LISTS } from './write-back.ts';

const JOB = 'hubspot-done:';

interface BatchAnswer {
  results: Array<{ id: string }>;
  errors?: Array<{ message?: string; context?: { id?: string[]; ids?: string[] } }>;
}

/** Writes the results now; the id of the finished job. */
export async function writeResults(
  client: HubSpotClient,
  results: readonly MemberResult[],
  options: WriteBackOptions,
): Promise<string> {
  const outcome: WriteOutcome = { written: 0, errors: [] };
  const writesProperties = options.fields || options.tags;
  for (let start = 0; start < results.length; start += BATCH) {
    const chunk = results.slice(start, start + BATCH);
    if (!writesProperties) {
      outcome.written += chunk.length;
      continue;
    }
    try {
      const answer = await client.post<BatchAnswer>('/crm/v3/objects/contacts/batch/update', {
        inputs: chunk.map((result) => ({
          id: result.memberId,
          properties: resultProperties(result, options),
        })),
      });
      const failed = new Set<string>();
      for (const error of answer.errors ?? []) {
        for (const id of [...(error.context?.id ?? []), ...(error.context?.ids ?? [])]) {
          failed.add(id);
          outcome.errors.push({ memberId: id, message: short(error.message ?? 'not written') });
        }
      }
      outcome.written += chunk.filter((result) => !failed.has(result.memberId)).length;
    } catch (error) {
      // A refused batch (a property deleted or changed in HubSpot meanwhile) fails as a whole.
      if (!(error instanceof HubSpotError) || error.status === null || error.status >= 500) throw error;
      for (const result of chunk)
        outcome.errors.push({ memberId: result.memberId, message: short(error.message) });
    }
  }
  if (options.unsubscribeInvalid) await optOutInvalid(client, results);
  return JOB + Buffer.from(JSON.stringify(outcome)).toString('base64url');
}

/** The outcome a job id carries; null for an id that is not one of ours. */
export function outcomeOf(jobId: string): WriteOutcome | null {
  if (!jobId.startsWith(JOB)) return null;
  return JSON.parse(Buffer.from(jobId.slice(JOB.length), 'base64url').toString('utf8')) as WriteOutcome;
}

const short = (message: string) => message.slice(0, 200);

/** Opts invalid contacts out of all email (communication preferences v4), 100 addresses a request. */
async function optOutInvalid(client: HubSpotClient, results: readonly MemberResult[]): Promise<void> {
  const invalid = results
    .filter((result) => categoryOf(result.status) === 'invalid')
    .map((result) => result.memberId);
  if (invalid.length === 0) return;
  const emails: string[] = [];
  for (const contact of await readContacts(client, invalid, ['email', 'hs_email_optout'])) {
    const email = contact.properties.email;
    if (email && contact.properties.hs_email_optout !== 'true') emails.push(email);
  }
  for (let start = 0; start < emails.length; start += BATCH) {
    await client.post(
      '/communication-preferences/v4/statuses/batch/unsubscribe-all',
      { inputs: emails.slice(start, start + BATCH) },
      { channel: 'EMAIL' },
    );
  }
}

/** A creation HubSpot refused because the thing exists: another process or an earlier attempt made it. */
const exists = (error: unknown) =>
  error instanceof HubSpotError &&
  (error.status === 409 ||
    (error.status === 400 && /already exists|DUPLICATE/i.test(JSON.stringify(error.problem))));

async function createOnce(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (!exists(error)) throw error;
  }
}

/** Creates the group, properties and score lists when missing; idempotent. */
export async function prepareWriteBack(client: HubSpotClient, options: WriteBackOptions): Promise<void> {
  // The score lists filter on mailvet_score: they need the properties as well.
  if (options.fields || options.tags || options.segments) {
    const groups = await client.get<{ results: Array<{ name: string }> }>(
      '/crm/v3/properties/contacts/groups',
    );
    if (!groups.results.some((group) => group.name === PROPERTY_GROUP.name))
      await createOnce(() => client.post('/crm/v3/properties/contacts/groups', PROPERTY_GROUP));
    const properties = await client.get<{ results: Array<{ name: string }> }>('/crm/v3/properties/contacts');
    const names = new Set(properties.results.map((property) => property.name));
    for (const property of PROPERTIES) {
      if (!names.has(property.name))
        await createOnce(() => client.post('/crm/v3/properties/contacts', property));
    }
  }
  if (options.segments) {
    const found = await client.post<{ lists: Array<{ name: string }> }>('/crm/v3/lists/search', {
      query: 'Mailvet score',
      processingTypes: ['DYNAMIC'],
      count: 100,
    });
    const names = new Set(found.lists.map((list) => list.name));
    for (const list of SCORE_LISTS) {
      if (names.has(list.name)) continue;
      await createOnce(() =>
        client.post('/crm/v3/lists', {
          name: list.name,
          objectTypeId: '0-1',
          processingType: 'DYNAMIC',
          filterBranch: list.filterBranch,
        }),
      );
    }
  }
}

/**
 * Write-back through Mailchimp's batch operations: one `POST /batches` carries every member's
 * writes (its merge fields, and its tags: the category's tag active, the other two inactive), so
 * 50,000 members take a handful of requests, not 100,000. Mailchimp runs the batch on its side;
 * its outcome is a gzipped tar of JSON files listing each operation's status, read here with
 * tar-stream. Operation ids name the member, so errors are reported per member.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { type Category, categoryOf } from '../categories.ts';
import type { MemberResult, WriteBackOptions, WriteOutcome } from '../ports.ts';
import type { MailchimpClient } from './client.ts';
import { CATEGORY_TAGS } from './write-back.ts';

interface Operation {
  method: 'PATCH' | 'POST';
  path: string;
  body: string;
  operation_id: string;
}

interface BatchAnswer {
  id: string;
  status: string;
  errored_operations?: number;
  response_body_url?: string;
}

interface OperationResult {
  status_code: number;
  operation_id?: string;
  response?: string;
}

/** The largest archive read back, bytes: a batch of a few thousand members is well under it. */
const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;

/** The operations writing `results` to the audience. */
export function writeOperations(
  audienceId: string,
  results: readonly MemberResult[],
  options: WriteBackOptions,
): Operation[] {
  const list = `/lists/${encodeURIComponent(audienceId)}`;
  const operations: Operation[] = [];
  for (const result of results) {
    const member = `${list}/members/${encodeURIComponent(result.memberId)}`;
    const category = categoryOf(result.status);
    const unsubscribe = options.unsubscribeInvalid && category === 'invalid';
    if (options.fields || unsubscribe) {
      operations.push({
        method: 'PATCH',
        path: member,
        body: JSON.stringify({
          ...(options.fields && {
            merge_fields: { MV_STATUS: result.status, MV_SCORE: result.score, MV_CHECKED: result.checkedOn },
          }),
          ...(unsubscribe && { status: 'unsubscribed' }),
        }),
        operation_id: `${result.memberId}:member`,
      });
    }
    if (options.tags) {
      operations.push({
        method: 'POST',
        path: `${member}/tags`,
        body: JSON.stringify({
          tags: (Object.entries(CATEGORY_TAGS) as Array<[Category, string]>).map(([each, name]) => ({
            name,
            status: each === category ? 'active' : 'inactive',
          })),
        }),
        operation_id: `${result.memberId}:tags`,
      });
    }
  }
  return operations;
}

/** Submits the writes as one batch; its id. */
export async function submitBatch(
  client: MailchimpClient,
  operations: readonly Operation[],
): Promise<string> {
  const batch = await client.post<BatchAnswer>('/batches', { operations });
  return batch.id;
}

/** The batch's outcome once finished (null before), members counted once whatever their operations. */
export async function batchOutcome(
  client: MailchimpClient,
  fetchArchive: typeof fetch,
  batchId: string,
): Promise<WriteOutcome | null> {
  const batch = await client.get<BatchAnswer>(`/batches/${encodeURIComponent(batchId)}`);
  if (batch.status !== 'finished') return null;
  const results = batch.response_body_url ? await readArchive(fetchArchive, batch.response_body_url) : [];
  const failed = new Map<string, string>();
  const members = new Set<string>();
  for (const result of results) {
    const memberId = result.operation_id?.split(':')[0];
    if (memberId === undefined || memberId === '') continue;
    members.add(memberId);
    if (result.status_code >= 400 && !failed.has(memberId)) failed.set(memberId, problemOf(result));
  }
  return {
    written: members.size - failed.size,
    errors: [...failed].map(([memberId, message]) => ({ memberId, message })),
  };
}

function problemOf(result: OperationResult): string {
  try {
    const problem = JSON.parse(result.response ?? '') as { title?: string; detail?: string };
    return `${result.status_code} ${problem.title ?? ''}: ${problem.detail ?? ''}`.trim();
  } catch {
    return `${result.status_code}`;
  }
}

/** Every operation result in the batch's archive (a gzipped tar of JSON arrays). */
async function readArchive(fetchArchive: typeof fetch, url: string): Promise<OperationResult[]> {
  const response = await fetchArchive(url, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok || response.body === null)
    throw new Error(`the batch archive answered ${response.status}`);
  const results: OperationResult[] = [];
  const entries = extract();
  let total = 0;
  const reading = (async () => {
    for await (const entry of entries) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) {
        total += chunk.length;
        if (total > MAX_ARCHIVE_BYTES) throw new Error('the batch archive is larger than expected');
        chunks.push(chunk as Buffer);
      }
      if (entry.header.type !== 'file' || !entry.header.name.endsWith('.json')) continue;
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      if (Array.isArray(parsed)) results.push(...(parsed as OperationResult[]));
    }
  })();
  Readable.fromWeb(response.body as never)
    .pipe(createGunzip())
    .on('error', (error) => entries.destroy(error))
    .pipe(entries);
  await reading;
  return results;
}

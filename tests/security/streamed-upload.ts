/**
 * Large CSV uploads made as they are sent (never whole in memory), for the attack tests.
 */
import type { ListServer } from '../lists/list-server.ts';

const MB = 1024 * 1024;

/** A CSV body generated about 1 MB at a time: the header, then `rows` rows from `row(i)`. */
export function csvStream(
  header: string,
  rows: number,
  row: (i: number) => string,
): ReadableStream<Uint8Array> {
  let i = 0;
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      if (i === 0) controller.enqueue(encoder.encode(`${header}\n`));
      let chunk = '';
      while (i < rows && chunk.length < MB) chunk += `${row(i++)}\n`;
      if (chunk.length > 0) controller.enqueue(encoder.encode(chunk));
      if (i >= rows) controller.close();
    },
  });
}

/** POST /lists with a streamed CSV body; the status and the parsed answer. */
export async function streamUpload(
  lists: ListServer,
  key: string,
  body: ReadableStream<Uint8Array>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await lists.api(key, '/lists', {
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Whether a list still takes charges and results, asked inside the write's own PostgreSQL
 * transaction with the list's row held for share: a pause or cancel then either waits for the
 * write or is seen by it, so nothing is charged or saved once it was acknowledged.
 */
import type { Transaction } from 'kysely';
import { LIVE_LIST_STATES } from '../../lists/ports.ts';
import type { DatabaseSchema } from './schema.ts';

/** True when the list exists and is queued or running; holds its row until the transaction ends. */
export async function holdLiveList(trx: Transaction<DatabaseSchema>, listId: string): Promise<boolean> {
  const list = await trx
    .selectFrom('lists')
    .select('state')
    .where('id', '=', listId)
    .forShare()
    .executeTakeFirst();
  return list !== undefined && (LIVE_LIST_STATES as readonly string[]).includes(list.state);
}

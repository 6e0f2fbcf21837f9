/**
 * Stores a batch of uploaded rows and their unique addresses, as `ListService.create` does for an
 * upload (there the addresses are gathered over the whole upload; here over one batch, which the
 * store merges with what it holds; `merge` false: the caller knows the list holds no address yet).
 */
import type { ListStore, UploadedRow } from '../../src/lists/ports.ts';
import { UniqueAddresses } from '../../src/lists/upload/unique-addresses.ts';

export async function addUploadRows(
  lists: Pick<ListStore, 'addRows' | 'addAddresses'>,
  listId: string,
  rows: readonly UploadedRow[],
  now: Date,
  merge = true,
): Promise<void> {
  await lists.addRows(listId, rows, now);
  const unique = new UniqueAddresses();
  for (const row of rows) unique.add(row);
  await lists.addAddresses(listId, unique.take(), now, merge);
}

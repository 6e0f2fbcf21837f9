/**
 * `chargeAddresses` in one Kysely transaction (PostgreSQL). The addresses are marked first: the
 * UPDATE locks their rows, so a concurrent charge of the same addresses waits, then finds them
 * marked and charges nothing for them. The quota is charged for exactly the rows this transaction
 * marked, and the marks the quota could not cover are taken back before the commit.
 */
import type { Kysely } from 'kysely';
import type { AddressCharge } from '../../lists/ports.ts';
import { holdLiveList } from './list-liveness.ts';
import type { DatabaseSchema } from './schema.ts';
import { ensureUsageRow, grantVerifications, verificationsUsed } from './usage-queries.ts';

/** Charges a batch of a list's addresses in one transaction on `db`. */
export function transactionalChargeAddresses(db: Kysely<DatabaseSchema>) {
  return (
    listId: string,
    addressKeys: readonly string[],
    charge: AddressCharge,
  ): Promise<{ charged: string[]; used: number; stopped?: true }> =>
    db.transaction().execute(async (trx) => {
      // Holding the list's row: a pause or cancel waits for this charge, or this charge sees it and
      // charges nothing, so nothing is charged once the pause or cancel was acknowledged.
      if (!(await holdLiveList(trx, listId))) {
        return {
          charged: [],
          used: await verificationsUsed(trx, charge.keyId, charge.month),
          stopped: true as const,
        };
      }
      if (addressKeys.length > 0) {
        // Lock the rows in one global order (by key) before marking them. The UPDATE alone locks
        // them in its plan's order (index order for a short key list, heap order for a long one),
        // so concurrent charges of overlapping batches deadlocked (found by the list store contract).
        await trx
          .selectFrom('list_addresses')
          .select('address_key')
          .where('list_id', '=', listId)
          .where('address_key', 'in', [...addressKeys])
          .orderBy('address_key')
          .forUpdate()
          .execute();
      }
      const marked =
        addressKeys.length === 0
          ? []
          : await trx
              .updateTable('list_addresses')
              .set({ charged: 1, charged_month: charge.month })
              .where('list_id', '=', listId)
              .where('address_key', 'in', [...addressKeys])
              .where('charged', '=', 0)
              .returning('address_key')
              .execute();
      const markedKeys = new Set(marked.map((row) => row.address_key));
      // Deduplicated: a key named twice would otherwise be charged (and reported) twice, while the
      // UPDATE marked its row only once (SQLite's chargeAddressesSync charges it once).
      const inOrder = [...new Set(addressKeys)].filter((key) => markedKeys.has(key));
      let grant = { granted: 0, used: 0 };
      if (inOrder.length > 0 && charge.limit > 0) {
        let charged = await grantVerifications(trx, charge.keyId, charge.month, inOrder.length, charge.limit);
        if (charged === undefined) {
          await ensureUsageRow(trx, charge.keyId, charge.month);
          charged = await grantVerifications(trx, charge.keyId, charge.month, inOrder.length, charge.limit);
        }
        if (charged !== undefined) grant = charged;
      }
      if (grant.granted === 0) grant.used = await verificationsUsed(trx, charge.keyId, charge.month);
      const uncovered = inOrder.slice(grant.granted);
      if (uncovered.length > 0) {
        await trx
          .updateTable('list_addresses')
          .set({ charged: 0, charged_month: null })
          .where('list_id', '=', listId)
          .where('address_key', 'in', uncovered)
          .execute();
      }
      return { charged: inOrder.slice(0, grant.granted), used: grant.used };
    });
}

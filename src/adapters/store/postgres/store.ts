/**
 * The PostgreSQL store: KyselyStore's queries, with the list writes as transactions
 * (`list-writes.ts`). Every process of a scale-out deployment shares it; quotas stay exact because
 * each charge is one statement on locked rows (`charges.ts`).
 */
import type { Kysely } from 'kysely';
import { KyselyStore } from '../kysely-store.ts';
import type { DatabaseSchema } from '../schema.ts';
import { chargeBulkRows, chargeVerificationRows } from './charges.ts';
import { postgresListWrites } from './list-writes.ts';

/** `Store` on PostgreSQL. */
export class PostgresStore extends KyselyStore {
  constructor(db: Kysely<DatabaseSchema>) {
    super(db, 'postgres', postgresListWrites(db), {
      verifications: (owner, month, requested, ceiling) =>
        chargeVerificationRows(db, owner, month, requested, ceiling),
      bulkRequest: (owner, month, ceiling) => chargeBulkRows(db, owner, month, ceiling),
    });
  }
}

/**
 * The PostgreSQL store: KyselyStore's queries, with the list writes as transactions
 * (`list-writes.ts`). Every process of a scale-out deployment shares it; quotas stay exact because
 * each charge is one conditional UPDATE.
 */
import type { Kysely } from 'kysely';
import { KyselyStore } from '../kysely-store.ts';
import type { DatabaseSchema } from '../schema.ts';
import { postgresListWrites } from './list-writes.ts';

/** `Store` on PostgreSQL. */
export class PostgresStore extends KyselyStore {
  constructor(db: Kysely<DatabaseSchema>) {
    super(db, 'postgres', postgresListWrites(db));
  }
}

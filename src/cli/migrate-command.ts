/**
 * `mailvet migrate`: applies database migrations (serve and worker also do at start, under a lock).
 */
import { migrateOnly } from '../adapters/store/open-store.ts';
import { loadConfig } from '../config.ts';

/** Applies pending migrations and lists them. */
export async function runMigrate(): Promise<void> {
  const config = loadConfig();
  const applied = await migrateOnly({ databaseUrl: config.DATABASE_URL, dataDir: config.MAILVET_DATA_DIR });
  const where = config.DATABASE_URL === undefined ? `${config.MAILVET_DATA_DIR}/mailvet.db` : 'PostgreSQL';
  process.stdout.write(
    applied.length === 0 ? `${where}: up to date\n` : `${where}: applied ${applied.join(', ')}\n`,
  );
}

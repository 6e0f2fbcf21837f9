/**
 * `mailvet migrate`: applies database migrations (serve and worker also do at start, under a lock).
 */
import { loadConfig } from '../config.ts';
import { migrateConfiguredStore } from '../container/store.ts';
import { storeProblem } from './plain-errors.ts';

/** Applies pending migrations and lists them. */
export async function runMigrate(): Promise<void> {
  const config = loadConfig();
  const applied = await migrateConfiguredStore(config).catch((error: unknown) => {
    throw storeProblem(error, config) ?? error;
  });
  const where = config.DATABASE_URL === undefined ? `${config.MAILVET_DATA_DIR}/mailvet.db` : 'PostgreSQL';
  process.stdout.write(
    applied.length === 0 ? `${where}: up to date\n` : `${where}: applied ${applied.join(', ')}\n`,
  );
}

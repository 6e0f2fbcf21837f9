/**
 * The configured store and plans, on their own so the store commands (`keys`, `accounts`, `users`,
 * `migrate`) load the database layer only, not the verifier, the HTTP clients and the job runtime.
 */
import { readFile } from 'node:fs/promises';
import { BUILT_IN_PLANS, type Plan, parsePlans } from '../accounts/plans.ts';
import { migrateOnly, openStore } from '../adapters/store/open-store.ts';
import { type Config, ConfigError } from '../config.ts';
import type { Store } from '../store.ts';

/** The plans: MAILVET_PLANS when set, else the built-in ones. */
export async function loadPlans(config: Config): Promise<Readonly<Record<string, Plan>>> {
  if (config.MAILVET_PLANS === undefined) return BUILT_IN_PLANS;
  let text: string;
  try {
    text = await readFile(config.MAILVET_PLANS, 'utf8');
  } catch (error) {
    throw new ConfigError([
      `MAILVET_PLANS: cannot read ${config.MAILVET_PLANS}: ${(error as Error).message}`,
    ]);
  }
  try {
    return parsePlans(text);
  } catch (error) {
    throw new ConfigError([`MAILVET_PLANS: ${config.MAILVET_PLANS}: ${(error as Error).message}`]);
  }
}

/** The configured store (SQLite in the data directory, or PostgreSQL), migrated with the plans in force. */
export async function openConfiguredStore(
  config: Config,
  plans?: Readonly<Record<string, Plan>>,
): Promise<Store> {
  return openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.MAILVET_DATA_DIR,
    plans: plans ?? (await loadPlans(config)),
  });
}

/** Applies pending migrations to the configured store and closes it; returns their names. */
export async function migrateConfiguredStore(config: Config): Promise<string[]> {
  return migrateOnly({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.MAILVET_DATA_DIR,
    plans: await loadPlans(config),
  });
}

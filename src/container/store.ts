/**
 * The configured store and plans, on their own so the store commands (`keys`, `accounts`, `users`,
 * `migrate`) load the database layer only, not the verifier, the HTTP clients and the job runtime.
 */
import { readFile } from 'node:fs/promises';
import { BUILT_IN_PLANS, type Plan, parsePlans } from '../accounts/plans.ts';
import { migrateOnly, openStore } from '../adapters/store/open-store.ts';
import { type Config, ConfigError } from '../config.ts';
import type { Store } from '../store.ts';

/**
 * The plans: MAILVET_PLANS when set, else the built-in ones. A MAILVET_DEFAULT_PLAN they do not
 * have stops the command or the start, named, before anything is opened.
 */
export async function loadPlans(config: Config): Promise<Readonly<Record<string, Plan>>> {
  const plans = await readPlans(config);
  defaultPlanOf(config, plans);
  return plans;
}

/** MAILVET_DEFAULT_PLAN, which new accounts get, when the plans have it. */
export function defaultPlanOf(
  config: Pick<Config, 'MAILVET_DEFAULT_PLAN' | 'MAILVET_PLANS'>,
  plans: Readonly<Record<string, Plan>>,
): string {
  const name = config.MAILVET_DEFAULT_PLAN;
  if (Object.hasOwn(plans, name)) return name;
  const from = config.MAILVET_PLANS === undefined ? 'the built-in plans are' : `${config.MAILVET_PLANS} has`;
  throw new ConfigError([
    `MAILVET_DEFAULT_PLAN: there is no plan "${name}": ${from} ${Object.keys(plans).join(', ')}`,
  ]);
}

async function readPlans(config: Config): Promise<Readonly<Record<string, Plan>>> {
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

/**
 * Said at start while MAILVET_OPERATORS is set: it trusted a sign-in address nobody confirmed, so
 * it grants nothing now; the upgrade marked its users once, and the CLI marks operators since.
 */
export const RETIRED_OPERATORS_WARNING =
  'MAILVET_OPERATORS is ignored: operators are marked on their user now (the upgrade marked the users it named). ' +
  'See them with `mailvet users list`, mark one with `mailvet users update USER_ID --operator` ' +
  '(or `mailvet users create --operator`), and remove MAILVET_OPERATORS from the environment.';

/** The configured store (SQLite in the data directory, or PostgreSQL), migrated with the plans in force. */
export async function openConfiguredStore(
  config: Config,
  plans?: Readonly<Record<string, Plan>>,
  options: { backgroundCheckpoints?: boolean } = {},
): Promise<Store> {
  return openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.MAILVET_DATA_DIR,
    plans: plans ?? (await loadPlans(config)),
    operators: config.MAILVET_OPERATORS,
    ...options,
  });
}

/** Applies pending migrations to the configured store and closes it; returns their names. */
export async function migrateConfiguredStore(config: Config): Promise<string[]> {
  return migrateOnly({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.MAILVET_DATA_DIR,
    plans: await loadPlans(config),
    operators: config.MAILVET_OPERATORS,
  });
}

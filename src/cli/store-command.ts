/**
 * What the store-managing commands (`keys`, `accounts`, `users`) share: the configured store for
 * the length of one command, and the checks of their flags.
 */

import { existsSync } from 'node:fs';
import type { Plan } from '../accounts/plans.ts';
import type { Figures } from '../accounts/ports.ts';
import { type Config, loadConfig } from '../config.ts';
import { openConfiguredStore } from '../container/store.ts';
import type { Store } from '../store.ts';
import { sqliteFile, storeProblem } from './plain-errors.ts';
import { UsageError } from './usage-error.ts';

/**
 * Runs `work` on the configured store, closed afterwards. An embedded database that does not exist
 * yet is made only with `init`: a command run from another directory would otherwise make a fresh
 * `./data/mailvet.db` the running server never reads (and a key there that the server refuses).
 */
export async function withStore<T>(
  work: (store: Store, where: string) => Promise<T>,
  options: { init?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const where = storeLocation(config);
  if (config.DATABASE_URL === undefined && !options.init && !existsSync(sqliteFile(config))) {
    throw new UsageError(
      `no database at ${sqliteFile(config)}: run this where the server runs, or set MAILVET_DATA_DIR ` +
        '(or DATABASE_URL) to its data; --init makes a new database there',
    );
  }
  // A database this user cannot write (or open) is said in one line, not a driver's stack trace.
  const plain = (error: unknown) => storeProblem(error, config) ?? error;
  const store = await openConfiguredStore(config).catch((error: unknown) => {
    throw plain(error);
  });
  try {
    return await work(store, where);
  } catch (error) {
    throw plain(error);
  } finally {
    await store.close();
  }
}

/** Which database a command works on, in words (never a password). */
export function storeLocation(config: Config): string {
  if (config.DATABASE_URL === undefined) return `the SQLite database ${sqliteFile(config)}`;
  try {
    const url = new URL(config.DATABASE_URL);
    return `the PostgreSQL database ${url.pathname.slice(1) || '(default)'} on ${url.host}`;
  } catch {
    return 'the PostgreSQL database of DATABASE_URL';
  }
}

/** The plan named (default: MAILVET_DEFAULT_PLAN, which loadPlans has checked) when the plans have it. */
export function knownPlan(
  plans: Readonly<Record<string, Plan>>,
  plan: string | undefined,
  config: Pick<Config, 'MAILVET_DEFAULT_PLAN'> = loadConfig(),
): string {
  const name = plan ?? config.MAILVET_DEFAULT_PLAN;
  if (!Object.hasOwn(plans, name))
    throw new UsageError(`unknown plan "${name}"; plans: ${Object.keys(plans).join(', ')}`);
  return name;
}

/** A `--name` of 1 to 200 characters; undefined when not given. */
export function optionalName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  if (name.length === 0 || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
  return name;
}

const QUOTA_FLAGS = { monthlyQuota: '--monthly-quota', bulkQuota: '--bulk-quota', rateLimit: '--rate-limit' };
/** The flags of a key's caps in `keys update`. */
export const CAP_FLAGS = {
  monthlyQuota: '--monthly-cap',
  bulkQuota: '--bulk-cap',
  rateLimit: '--rate-limit',
};

/**
 * `--monthly-quota`, `--bulk-quota`, `--rate-limit` as figures; a flag not given is left out.
 * With `removable`, the value `none` removes a figure (null).
 */
export function capFlags(
  flags: { monthlyQuota?: string; bulkQuota?: string; rateLimit?: string },
  removable = false,
  names: Record<keyof Figures, string> = QUOTA_FLAGS,
): Partial<Figures> {
  const figure = (flag: string, value: string | undefined, min: number) =>
    value === undefined
      ? undefined
      : removable && value.trim() === 'none'
        ? null
        : wholeNumber(flag, value, min);
  const figures: Partial<Figures> = {
    monthlyQuota: figure(names.monthlyQuota, flags.monthlyQuota, 0),
    bulkQuota: figure(names.bulkQuota, flags.bulkQuota, 0),
    rateLimit: figure(names.rateLimit, flags.rateLimit, 1),
  };
  return Object.fromEntries(Object.entries(figures).filter(([, value]) => value !== undefined));
}

function wholeNumber(flag: string, value: string, min: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`${flag} must be a whole number of at least ${min}`);
  }
  return parsed;
}

/**
 * `mailvet keys create|list|revoke` (DESIGN §5): manages API keys straight in the store, no server
 * needed. The key itself is printed once and never stored. A key made without `--account` is a new
 * customer: it gets an account of its own.
 */
import { issueApiKey, UnknownAccountError } from '../accounts/key-issuance.ts';
import { DEFAULT_PLAN } from '../accounts/plans.ts';
import type { ApiKeyRecord } from '../accounts/ports.ts';
import { loadConfig } from '../config.ts';
import { loadPlans, openConfiguredStore } from '../container/index.ts';
import type { Store } from '../store.ts';
import { UsageError } from './usage-error.ts';

interface CreateOptions {
  name: string;
  account?: string;
  plan?: string;
  monthlyQuota?: string;
  bulkQuota?: string;
  rateLimit?: string;
  json?: boolean;
}

/** `mailvet keys create`. */
export async function runKeysCreate(options: CreateOptions): Promise<void> {
  const config = loadConfig();
  const plans = await loadPlans(config);
  const plan = options.plan ?? DEFAULT_PLAN;
  if (!(plan in plans))
    throw new UsageError(`unknown plan "${plan}"; plans: ${Object.keys(plans).join(', ')}`);
  const name = options.name.trim();
  if (name.length === 0 || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
  const overrides = {
    monthlyQuota: wholeNumber('--monthly-quota', options.monthlyQuota, 0),
    bulkQuota: wholeNumber('--bulk-quota', options.bulkQuota, 0),
    rateLimit: wholeNumber('--rate-limit', options.rateLimit, 1),
  };
  const accountId = options.account?.trim();
  if (accountId !== undefined && accountId.length === 0)
    throw new UsageError('--account must name an account id');
  await withStore(async (store) => {
    const { record, key } = await issueApiKey(store, { accountId, name, plan, ...overrides }).catch(
      (error: unknown) => {
        throw error instanceof UnknownAccountError ? new UsageError(error.message) : error;
      },
    );
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...publicKey(record), key }, null, 2)}\n`);
    } else {
      process.stdout.write(`${key}\n`);
      process.stderr.write(
        `created key ${record.id} "${record.name}" on plan ${record.plan} in account ${record.accountId}: store it now, it is not shown again\n`,
      );
    }
  });
}

/** `mailvet keys list`. */
export async function runKeysList(options: { json?: boolean }): Promise<void> {
  await withStore(async (store) => {
    const keys = await store.listApiKeys();
    if (options.json) {
      process.stdout.write(`${JSON.stringify(keys.map(publicKey), null, 2)}\n`);
      return;
    }
    if (keys.length === 0) {
      process.stdout.write('no keys yet: mailvet keys create --name NAME\n');
      return;
    }
    for (const key of keys) {
      const overrides = [
        key.monthlyQuota !== null && `quota ${key.monthlyQuota}`,
        key.bulkQuota !== null && `bulk ${key.bulkQuota}`,
        key.rateLimit !== null && `rate ${key.rateLimit}/s`,
      ].filter(Boolean);
      const state = key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`;
      const line = [
        key.id,
        `${key.displayPrefix}…`,
        key.name,
        `account ${key.accountId}`,
        key.plan,
        ...overrides,
        state,
      ].join('  ');
      process.stdout.write(`${line}\n`);
    }
  });
}

/** `mailvet keys revoke ID`. */
export async function runKeysRevoke(id: string): Promise<void> {
  await withStore(async (store) => {
    if (!(await store.revokeApiKey(id))) throw new UsageError(`no active key with id ${id}`);
    process.stdout.write(`revoked ${id}\n`);
  });
}

/** What the CLI shows of a key: everything but its hash. */
function publicKey(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    plan: record.plan,
    account_id: record.accountId,
    prefix: record.displayPrefix,
    monthly_quota: record.monthlyQuota,
    bulk_quota: record.bulkQuota,
    rate_limit: record.rateLimit,
    created_at: record.createdAt,
    revoked_at: record.revokedAt,
  };
}

async function withStore(work: (store: Store) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const store = await openConfiguredStore(config);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

function wholeNumber(flag: string, value: string | undefined, min: number): number | null {
  if (value === undefined) return null;
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min) {
    throw new UsageError(`${flag} must be a whole number of at least ${min}`);
  }
  return parsed;
}

/**
 * `mailvet erase EMAIL --account ID [--json]`: erases an address from an account's data, as
 * `DELETE /api/v1/addresses/{email}` does, and prints what was erased. Recorded in the account's
 * audit log as the operator's `address.erased`, with the address's keyed hash only.
 */
import { loadConfig } from '../config.ts';
import { createCommandErasure } from '../container/erasure.ts';
import { operatorInitiator } from './operator-audit.ts';
import { withStore } from './store-command.ts';
import { UsageError } from './usage-error.ts';

/** `mailvet erase EMAIL --account ID [--json]`. */
export async function runErase(email: string, options: { account: string; json?: boolean }): Promise<void> {
  const config = loadConfig();
  if (email.trim() === '' || !email.includes('@')) throw new UsageError(`not an email address: ${email}`);
  await withStore(async (store) => {
    const account = await store.findAccount(options.account);
    if (account === null)
      throw new UsageError(`no account ${options.account} (see \`mailvet accounts list\`)`);
    const { erasure, sharedCache, close } = await createCommandErasure(config, store);
    try {
      const erased = await erasure.eraseAddress(account.id, email, operatorInitiator());
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ account_id: account.id, erased })}\n`);
        return;
      }
      process.stdout.write(
        `erased from account ${account.id}: ${erased.list_rows} list rows, ${erased.feedback} feedback events, ${erased.cached} cached results\n`,
      );
      if (!sharedCache)
        process.stdout.write(
          "a running server's in-memory result cache keeps the address's result until it expires (MAILVET_RESULT_TTL); DELETE /api/v1/addresses/{email} clears it at once\n",
        );
    } finally {
      await close();
    }
  });
}

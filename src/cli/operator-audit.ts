/**
 * The operators' commands record their changes in the account's audit log like the API does,
 * with the operator as the actor: the login running the command on this host (there is no client
 * address). Whoever runs them holds the server's database, so this names who, not what they may do.
 */
import { hostname, userInfo } from 'node:os';
import { AuditTrail, type Change } from '../audit/audit-trail.ts';
import type { Initiator } from '../audit/ports.ts';
import type { Store } from '../store.ts';

/** The operator running this command. */
export function operatorInitiator(): Initiator {
  const who = `${loginName()}@${hostname()}`;
  return { actor: { type: 'operator', id: who, label: `${who} (command line)` }, ip: null };
}

/** Records a change an operator made to the account. */
export async function recordOperatorChange(
  store: Pick<Store, 'audit'>,
  accountId: string,
  change: Change,
): Promise<void> {
  await new AuditTrail({ log: store.audit }).record(accountId, operatorInitiator(), change);
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid with no passwd entry (some containers): the environment is all there is to go on.
    return process.env.USER ?? process.env.LOGNAME ?? 'unknown';
  }
}

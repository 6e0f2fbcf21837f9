/**
 * Which list a worker slot works on, fairly between accounts. The queue is one line for everyone,
 * so the handler it calls decides: a queued list waits its turn when another account with a list
 * ready runs fewer lists, or as many but started one longer ago (round-robin: see compareTurns);
 * that account's list is queued instead. An account runs at most its plan's `maxRunningLists` at
 * once across all workers (the store counts them); a list waiting for a re-check gives its slot back and comes back when the re-check is due.
 * Whenever a list starts or a run ends, the lists whose turn it is are queued, so a list turned
 * away is taken up again as soon as it may run (the worker's sweep is the safety net).
 */
import { effectiveLimits, type Plan } from '../accounts/plans.ts';
import type { ApiKeyRecord } from '../accounts/ports.ts';
import type { JobHandler, JobQueue } from '../jobs/ports.ts';
import type { Store } from '../store.ts';
import type { ListRunner } from './list-runner.ts';
import { compareTurns, type ListStore, type ListTurn, listJob } from './ports.ts';

export interface ListTurnsDeps {
  store: Pick<Store, 'findApiKeyById' | 'findAccount'> & { lists: ListStore };
  plans: Readonly<Record<string, Plan>>;
  queue: Pick<JobQueue, 'enqueue'>;
  runner: Pick<ListRunner, 'run'>;
  now: () => Date;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** Lists queued at most when a run starts or ends: the next turns, fairest first. */
const TURNS_QUEUED = 4;

/** The queue handler: runs a list when it is its turn and its account is under its cap. */
export function listTurnsHandler(deps: ListTurnsDeps): JobHandler {
  const { lists } = deps.store;

  /** The running lists the key's account's plan allows; 0 when the account is gone. */
  const capFor = async (key: ApiKeyRecord): Promise<number> => {
    const account = await deps.store.findAccount(key.accountId);
    return account === null ? 0 : effectiveLimits(deps.plans, account.plan, account).maxRunningLists;
  };

  /**
   * The running lists a key's plan allows, 0 for a key that is gone (its run fails the list); each
   * key looked up once per walk over the turns.
   */
  const capsOfKeys = () => {
    const caps = new Map<string, Promise<number>>();
    return (apiKeyId: string): Promise<number> => {
      let cap = caps.get(apiKeyId);
      if (cap === undefined) {
        cap = deps.store
          .findApiKeyById(apiKeyId)
          .then((key) => (key === null || key.revokedAt !== null ? 0 : capFor(key)));
        caps.set(apiKeyId, cap);
      }
      return cap;
    };
  };

  /** Queues the lists whose turn it is (under their account's cap), fairest first. */
  const queueTurns = async (): Promise<void> => {
    const capOf = capsOfKeys();
    let queued = 0;
    for (const turn of await lists.listTurns(deps.now())) {
      if (queued >= TURNS_QUEUED) return;
      if (turn.running >= (await capOf(turn.apiKeyId))) continue;
      await deps.queue.enqueue(listJob(turn.listId));
      queued++;
    }
  };
  const queueTurnsSafely = (): void => {
    queueTurns().catch((error: unknown) =>
      deps.log('warn', 'could not queue the next lists', { err: error }),
    );
  };

  /** Another account's ready list that should go before one of `accountId`, or undefined. */
  const fairerTurn = async (turns: readonly ListTurn[], accountId: string): Promise<ListTurn | undefined> => {
    const mine = turns.find((turn) => turn.accountId === accountId);
    if (mine === undefined) return undefined;
    const capOf = capsOfKeys();
    for (const turn of turns) {
      if (turn.accountId === accountId || compareTurns(turn, mine) >= 0) continue;
      if (turn.running < (await capOf(turn.apiKeyId))) return turn;
    }
    return undefined;
  };

  return async (listId) => {
    const list = await lists.getList(listId);
    if (list === null || (list.state !== 'queued' && list.state !== 'running')) return;
    const key = await deps.store.findApiKeyById(list.apiKeyId);
    if (key === null || key.revokedAt !== null) {
      // The runner fails the list and tells its owner why.
      await deps.runner.run(listId);
      return;
    }
    if (list.state === 'queued') {
      const fairer = await fairerTurn(await lists.listTurns(deps.now()), list.accountId);
      if (fairer !== undefined) {
        // Not this account's turn: the other goes first; this one is queued again when a run
        // starts or ends (or by the sweep).
        await deps.queue.enqueue(listJob(fairer.listId));
        return;
      }
    }
    const start = await lists.startRun(listId, deps.now(), await capFor(key));
    if (start.kind === 'idle' || start.kind === 'capped') return;
    if (start.kind === 'waiting') return { runAgainInMs: Date.parse(start.at) - deps.now().getTime() };
    // A slot may be free beside this one: queue whoever's turn is next.
    if (start.kind === 'started') queueTurnsSafely();
    try {
      const outcome = await deps.runner.run(listId);
      if (outcome.waitUntil !== undefined) {
        return { runAgainInMs: outcome.waitUntil.getTime() - deps.now().getTime() };
      }
      return;
    } finally {
      queueTurnsSafely();
    }
  };
}

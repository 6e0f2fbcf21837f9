/**
 * The API's verification charges of one event-loop turn, made as one charge per key, month and
 * ceiling: two `UPDATE … RETURNING` for the whole group instead of two (and a savepoint) for each
 * request, which was a tenth of a cached request's time. What each request is granted and told is
 * what charging them one after another, in arrival order, gives: the total granted is shared in that
 * order (each takes what it asked while any is left), and each sees the counts as they stood after
 * its own charge. Nothing is granted before the transaction commits.
 */
import type { UsageMonth } from '../../../usage/months.ts';
import type { Ceiling, UsageOwner, Used } from '../../../usage/ports.ts';
import type { SqliteCharges } from './charges.ts';
import type { WriteBatcher } from './write-batcher.ts';

interface Charge {
  granted: number;
  used: Used;
}

interface Ask {
  requested: number;
  resolve: (charge: Charge) => void;
  reject: (error: unknown) => void;
}

interface Group {
  owner: UsageOwner;
  month: UsageMonth;
  ceiling: Ceiling;
  asks: Ask[];
  /** Set inside the transaction: each ask's charge, in order, or the error of the group's. */
  outcome?: { charges: Charge[] } | { error: unknown };
}

/** The groups of one write: in the order of their first ask, and found by key id. */
interface OpenWrite {
  groups: Group[];
  byKey: Map<string, Group[]>;
}

export class CoalescedCharges {
  readonly #writes: WriteBatcher;
  readonly #charges: SqliteCharges;
  /** The groups of the write not yet run; null once it ran (a later ask starts another). */
  #open: OpenWrite | null = null;

  constructor(writes: WriteBatcher, charges: SqliteCharges) {
    this.#writes = writes;
    this.#charges = charges;
  }

  verifications(owner: UsageOwner, month: UsageMonth, requested: number, ceiling: Ceiling): Promise<Charge> {
    return new Promise((resolve, reject) => {
      if (this.#open === null) this.#startWrite();
      groupOf(this.#open!, owner, month, ceiling).asks.push({ requested, resolve, reject });
    });
  }

  #startWrite(): void {
    const open: OpenWrite = { groups: [], byKey: new Map() };
    this.#open = open;
    this.#writes
      .run(() => {
        // From here on, asks go to the next write.
        this.#open = null;
        for (const group of open.groups) this.#charge(group);
      })
      .then(
        () => {
          for (const group of open.groups) tell(group);
        },
        (error: unknown) => {
          for (const group of open.groups) for (const ask of group.asks) ask.reject(error);
        },
      );
  }

  /** One group's charge, inside the write's transaction: what each ask is told once it commits. */
  #charge(group: Group): void {
    const { owner, month, ceiling, asks } = group;
    let total = 0;
    for (const ask of asks) total += ask.requested;
    let charged: { granted: number; used: Used };
    try {
      charged = this.#charges.verifications(owner, month, total, ceiling);
    } catch (error) {
      group.outcome = { error };
      return;
    }
    // The counts before the group's charge, then each ask's share in arrival order.
    let left = charged.granted;
    let account = charged.used.account - charged.granted;
    let key = charged.used.key - charged.granted;
    const charges: Charge[] = [];
    for (const ask of asks) {
      const granted = Math.min(ask.requested, left);
      left -= granted;
      account += granted;
      key += granted;
      charges.push({ granted, used: { account, key } });
    }
    group.outcome = { charges };
  }
}

/** Tells a group's asks what the committed write gave them (or why it gave nothing). */
function tell({ asks, outcome }: Group): void {
  if (outcome === undefined || 'error' in outcome) {
    for (const ask of asks) ask.reject(outcome?.error);
    return;
  }
  asks.forEach((ask, i) => {
    ask.resolve(outcome.charges[i]!);
  });
}

/**
 * The group of this key, account, month and ceiling, made when it is the first. Found by the key's
 * id (the same string every request, its hash kept), then field by field, instead of a name
 * joining the five made and hashed for each ask.
 */
function groupOf(open: OpenWrite, owner: UsageOwner, month: UsageMonth, ceiling: Ceiling): Group {
  let mine = open.byKey.get(owner.keyId);
  if (mine === undefined) {
    mine = [];
    open.byKey.set(owner.keyId, mine);
  }
  for (const group of mine) {
    if (
      group.owner.accountId === owner.accountId &&
      group.month === month &&
      group.ceiling.account === ceiling.account &&
      group.ceiling.key === ceiling.key
    )
      return group;
  }
  const group: Group = { owner, month, ceiling, asks: [] };
  mine.push(group);
  open.groups.push(group);
  return group;
}

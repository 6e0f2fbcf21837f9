/**
 * Entry ids that sort as their entries were recorded: `aud_` and a UUIDv7 (RFC 9562) in 32 hex
 * digits, the millisecond of `at` first. Paging newest first is then one index range on the id, and
 * `before` a plain id. Within one millisecond the 12 bits after the version count up in this
 * process (RFC 9562 §6.2, method 1), so entries recorded one after another keep their order.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'aud_';
/** What an entry id looks like (for checking a cursor before it reaches the store). */
export const ENTRY_ID_PATTERN = '^aud_[0-9a-f]{32}$';

let lastMs = -1;
let lastCounter = 0;

/** A new entry id for an entry recorded at `at`. */
export function newEntryId(at: Date): string {
  const ms = at.getTime();
  const random = randomBytes(10);
  let counter = ((random[0]! & 0x0f) << 8) | random[1]!;
  // Half the counter's room stays free for the entries of the same millisecond that follow.
  counter &= 0x7ff;
  if (ms === lastMs) counter = Math.min(lastCounter + 1, 0xfff);
  lastMs = ms;
  lastCounter = counter;
  const time = ms.toString(16).padStart(12, '0').slice(-12);
  const versioned = (0x7000 | counter).toString(16);
  const variant = ((random[2]! & 0x3f) | 0x80).toString(16).padStart(2, '0');
  return `${PREFIX}${time}${versioned}${variant}${random.subarray(3).toString('hex')}`;
}

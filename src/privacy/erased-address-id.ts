/**
 * How the audit log names an erased address without holding it: an HMAC-SHA256 of its list
 * identity under a key of its own derived from the server secret. The same address always gives
 * the same id, so a later request can be matched to the entry ("was this address erased?") by
 * whoever holds the secret; without it, the id says nothing, even to someone guessing addresses.
 */
import { createHmac } from 'node:crypto';

/** The audit target id of an erased address: `addr_` and 64 hex digits. */
export function erasedAddressId(key: Uint8Array, addressKey: string): string {
  return `addr_${createHmac('sha256', key).update(addressKey, 'utf8').digest('hex')}`;
}

/**
 * An upload's unique addresses, gathered in memory as its rows stream in and handed to the store
 * sorted by domain then key: the order the store keeps them in and the runner works in. Written so,
 * the addresses of a list fill pages one after another; written row by row, in upload order, each
 * batch of rows touched a page per address all over the table (most of an upload's writes).
 *
 * Memory stays bounded: past `capacity` addresses the gathered ones are handed over (sorted) and
 * the next ones gathered afresh; the store merges an address that comes again later.
 */
import { domainOfKey } from '../../usage/verification-service.ts';
import type { UploadedAddress, UploadedRow } from '../ports.ts';

/** Addresses held before they are handed over: about 10 MB of them. */
export const UNIQUE_ADDRESS_CAPACITY = 100_000;

export class UniqueAddresses {
  readonly #capacity: number;
  // Kept lean (a million-row upload holds this many entries at once): per address its key, an
  // index into two number arrays, and its email only where the row wrote it otherwise than the key.
  // Its domain is read back from the key when handed over.
  #index = new Map<string, number>();
  #firstRows: number[] = [];
  #rowCounts: number[] = [];
  #emails = new Map<number, string>();

  constructor(capacity = UNIQUE_ADDRESS_CAPACITY) {
    this.#capacity = capacity;
  }

  /** Counts `row` to its address; returns the addresses to store when the gathering is full. */
  add(row: UploadedRow): UploadedAddress[] | null {
    const seen = this.#index.get(row.addressKey);
    if (seen !== undefined) {
      this.#rowCounts[seen]! += 1;
      return null;
    }
    const at = this.#firstRows.length;
    this.#index.set(row.addressKey, at);
    this.#firstRows.push(row.rowNumber);
    this.#rowCounts.push(1);
    if (row.email !== row.addressKey) this.#emails.set(at, row.email);
    return this.#index.size >= this.#capacity ? this.take() : null;
  }

  /** The addresses gathered so far, sorted by domain then key; the gathering starts again empty. */
  take(): UploadedAddress[] {
    const addresses: UploadedAddress[] = [];
    for (const [addressKey, at] of this.#index) {
      addresses.push({
        addressKey,
        email: this.#emails.get(at) ?? addressKey,
        domain: domainOfKey(addressKey),
        firstRow: this.#firstRows[at]!,
        rowCount: this.#rowCounts[at]!,
      });
    }
    this.#index = new Map();
    this.#firstRows = [];
    this.#rowCounts = [];
    this.#emails = new Map();
    return addresses.sort(byWorkOrder);
  }
}

function byWorkOrder(x: UploadedAddress, y: UploadedAddress): number {
  if (x.domain !== y.domain) return x.domain < y.domain ? -1 : 1;
  if (x.addressKey === y.addressKey) return 0;
  return x.addressKey < y.addressKey ? -1 : 1;
}

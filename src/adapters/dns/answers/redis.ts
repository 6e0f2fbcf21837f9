/**
 * DNS answers shared in Redis (scale-out mode): one process's upstream lookup serves every
 * process until the answer's TTL runs out. Keys are `mailvet:dns:<question>:<name>`; the value is
 * the answer's JSON without its TTL, which is the key's own expiry (read back with PTTL, so every
 * reader sees the time left, not the time first given).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { DnsAnswerStore, DnsQuestion, SharedDnsAnswer } from '../ports.ts';

/** Default key prefix of shared DNS answers. */
export const DNS_KEY_PREFIX = 'mailvet:dns:';

// Host names reaching the resolver are ASCII; anything else (or anything huge) is hashed so a key
// stays small and free of spaces, glob characters and lone surrogates.
const PLAIN_NAME = /^[\x21-\x7e]{1,255}$/;

/** A DnsAnswerStore in Redis; rejects when Redis does not answer (wrap it in the fallback). */
export class RedisDnsAnswerStore implements DnsAnswerStore {
  readonly #client: Redis;
  readonly #prefix: string;

  constructor(client: Redis, keyPrefix = DNS_KEY_PREFIX) {
    this.#client = client;
    this.#prefix = keyPrefix;
  }

  /** The Redis key of one question about one name. */
  keyOf(question: DnsQuestion, name: string): string {
    if (PLAIN_NAME.test(name)) return `${this.#prefix}${question}:${name}`;
    return `${this.#prefix}${question}:#${createHash('sha256').update(name, 'utf16le').digest('hex')}`;
  }

  /** The shared answer with the seconds it has left, or undefined (also for an entry not ours). */
  async get(question: DnsQuestion, name: string): Promise<SharedDnsAnswer | undefined> {
    const key = this.keyOf(question, name);
    const replies = await this.#client.multi().get(key).pttl(key).exec();
    if (replies === null) return undefined;
    const [[getError, stored] = [], [ttlError, pttl] = []] = replies;
    if (getError) throw getError;
    if (ttlError) throw ttlError;
    if (typeof stored !== 'string' || typeof pttl !== 'number' || pttl <= 0) return undefined;
    return parseAnswer(stored, Math.ceil(pttl / 1000));
  }

  /** Stores the answer for `ttlSeconds` (to the millisecond); 0 or less stores nothing. */
  async set(question: DnsQuestion, name: string, answer: SharedDnsAnswer, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0 && Number.isFinite(ttlSeconds))) return;
    const value = JSON.stringify(
      answer.kind === 'ok' ? { kind: 'ok', records: answer.records } : { kind: answer.kind },
    );
    await this.#client.set(
      this.keyOf(question, name),
      value,
      'PX',
      Math.max(1, Math.ceil(ttlSeconds * 1000)),
    );
  }
}

/** The stored JSON as an answer; anything else (truncated, hand-written) is a miss. */
function parseAnswer(stored: string, ttlSeconds: number): SharedDnsAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, records } = value as { kind?: unknown; records?: unknown };
  if (kind === 'nxdomain' || kind === 'nodata') return { kind, ttlSeconds };
  if (kind === 'ok' && Array.isArray(records)) return { kind, records, ttlSeconds };
  return undefined;
}

/**
 * How a list's results are stored on SQLite: deflated with a preset dictionary of what every
 * result repeats (its field names, statuses, reasons, the usual SMTP reply words), so a 900-byte
 * result JSON takes about 100 bytes. A list of a million addresses is written, then checkpointed,
 * once each: the smaller the result, the fewer pages a save dirties.
 *
 * PostgreSQL stores the same form (a bytea since migration 0020): as JSON text, the row version
 * each save writes carried a kilobyte to the WAL, two fifths of what a list job wrote there.
 *
 * The first byte names the dictionary, so a later one can be added beside it; a result stored as
 * JSON (text, or its UTF-8 bytes where 0020 turned PostgreSQL's text into bytea) is read as it is.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { VerificationResult } from '../../verification/report.ts';

/** Never edit a dictionary once results were stored with it: add another under a new version. */
const DICTIONARIES: Readonly<Record<number, Buffer>> = {
  1: Buffer.from(
    [
      '"RISKY","reason":"catch_all","UNKNOWN","reason":"greylisted","timeout","connect_failed",',
      '"disposable":true,"role_based":true,"free_provider":true,"catch_all":true,"mailbox_exists":true,',
      '"smtp":"deliverable","status":"VALID","reason":"accepted","outcome":"accepted","outcome":"rejected",',
      'mailbox unavailable","No such user here","does not exist","Recipient address rejected: ',
      'User unknown in virtual mailbox table","550 5.1.1 ","2.1.5 Ok","250 2.1.5","OK","gmail.com","outlook.com",',
      '{"email":"","checks":{"syntax":true,"domain_exists":true,"mx_records":true,"mailbox_exists":false,',
      '"disposable":false,"role_based":false,"suggestions":[],"free_provider":false,"catch_all":false,',
      '"smtp":"undeliverable","catch_all_confidence":null},"score":5,"status":"INVALID",',
      '"reason":"mailbox_not_found","duration_ms":0,"evidence":{"mx_host":"","mx_address":"","provider":null,',
      '"smtp_reply":{"stage":"rcpt","code":550,"enhanced_code":"5.1.1","message":"","at":"2026-01-01T00:00:00.000Z"},',
      '"catch_all_probe":{"ran":true,"outcome":"rejected","reply":{"stage":"rcpt","code":550,"enhanced_code":"5.1.1",',
      '"message":"","at":"2026-01-01T00:00:00.000Z"}},"catch_all_signals":[]}}',
    ].join(''),
  ),
};

const CURRENT = 1;
/**
 * Level 1: a few per cent larger than the default, in two thirds of the time. A 4 KB window (it
 * holds the dictionary and a whole result) and a small hash: zlib's defaults allocate 256 KB per
 * call, which a list of a million results allocated a million times, and the process kept.
 */
const DEFLATE = { level: 1, windowBits: 12, memLevel: 4 } as const;
const INFLATE = { windowBits: 12 } as const;

/** The stored form of `result`. */
export function encodeResult(result: VerificationResult): Buffer {
  const deflated = deflateRawSync(JSON.stringify(result), { ...DEFLATE, dictionary: DICTIONARIES[CURRENT]! });
  const stored = Buffer.allocUnsafe(deflated.length + 1);
  stored[0] = CURRENT;
  deflated.copy(stored, 1);
  return stored;
}

/** The first byte of a result stored as JSON bytes (`{`): no dictionary has that number. */
const JSON_OBJECT = 0x7b;

/** A stored result back: the compact form, or JSON as text or bytes. */
export function decodeResult(stored: string | Uint8Array): VerificationResult {
  if (typeof stored === 'string') return JSON.parse(stored) as VerificationResult;
  if (stored[0] === JSON_OBJECT)
    return JSON.parse(
      Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('utf8'),
    ) as VerificationResult;
  const dictionary = DICTIONARIES[stored[0]!];
  if (dictionary === undefined) throw new Error(`a stored result of an unknown form (${stored[0]})`);
  const json = inflateRawSync(stored.subarray(1), { ...INFLATE, dictionary });
  return JSON.parse(json.toString('utf8')) as VerificationResult;
}

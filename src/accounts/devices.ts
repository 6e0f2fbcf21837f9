/**
 * A browser that signed in to an account before carries a device token: its user's id and when it
 * was issued, under an HMAC with a key of the server's own. Five wrong passwords lock an address
 * for a while, and anyone can type five wrong passwords: the token spares the user's own browser
 * that lock, while every other client stays under it. It proves only that this browser signed in
 * as this user once; it signs nobody in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a device token is honoured after it was issued (it is issued again at each sign-in). */
export const DEVICE_LIFETIME_MS = 365 * DAY_MS;

export class DeviceTokens {
  readonly #key: Buffer;
  readonly #now: () => Date;

  /** `key`: a subkey of MAILVET_SECRET_KEY for this use alone. */
  constructor(key: Buffer, now: () => Date = () => new Date()) {
    this.#key = key;
    this.#now = now;
  }

  /** A token for a browser the user just signed in with. */
  issue(userId: string): string {
    const issued = String(Math.floor(this.#now().getTime() / 1000));
    return `${userId}.${issued}.${this.#mac(userId, issued)}`;
  }

  /** The user a token was issued to; null when it is malformed, forged or too old. */
  userOf(token: string | undefined): string | null {
    if (token === undefined || token.length > 200) return null;
    const match = /^([A-Za-z0-9-]{1,100})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (match === null) return null;
    const [, userId, issued, mac] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.#mac(userId, issued));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return null;
    const age = this.#now().getTime() - Number(issued) * 1000;
    // A day of leeway for a process whose clock runs ahead of this one.
    return age > -DAY_MS && age < DEVICE_LIFETIME_MS ? userId : null;
  }

  #mac(userId: string, issued: string): string {
    return createHmac('sha256', this.#key).update(`device\n${userId}\n${issued}`).digest('base64url');
  }
}

/**
 * A connected provider's credentials (an API key, an OAuth token) are stored sealed: AES-256-GCM
 * under a key derived from MAILVET_SECRET_KEY with HKDF for this one purpose, so the same secret's
 * other uses (session CSRF tokens, webhook signatures) never share a key with it. Each seal has a
 * fresh 96-bit nonce; the integration's id is bound as associated data, so a sealed value copied
 * onto another integration's row does not open.
 *
 * Format: `v1.<nonce>.<ciphertext>.<tag>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const INFO = 'mailvet integration credentials v1';
const TAG_BYTES = 16;

/** Seals and opens credentials with a key derived from the service's secret. */
export class CredentialVault {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    if (secretKey.length < 32) throw new RangeError('the secret key must be at least 32 bytes');
    this.#key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), INFO, 32));
  }

  /** The sealed form of `plain`, bound to `owner` (the integration's id). */
  seal(plain: string, owner: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, nonce, sealed, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plain text; throws when the value was altered, sealed for another owner or with another secret. */
  open(sealed: string, owner: string): string {
    const [version, nonce, body, tag, extra] = sealed.split('.');
    if (
      version !== VERSION ||
      nonce === undefined ||
      body === undefined ||
      tag === undefined ||
      extra !== undefined
    ) {
      throw new Error('not a sealed credential');
    }
    // A fixed tag length: otherwise a tag cut to 4 bytes would be accepted, and forged more easily.
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(nonce, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(owner, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

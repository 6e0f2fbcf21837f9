/**
 * Passwords of dashboard users: argon2id (OWASP's first choice) with @node-rs/argon2's defaults
 * (19 MiB, 2 passes, 1 lane: OWASP's minimum for argon2id), which ships prebuilt binaries.
 */

// Loaded on the first password checked or set: an API-only process never pays for it.
const argon2 = () => import('@node-rs/argon2');

/** At least 10 characters (docs/api.md, accounts); the upper bound keeps hashing cheap to refuse. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

/** The stored form of a password: a PHC string (`$argon2id$v=19$m=…`: parameters, salt, hash). */
export function hashPassword(password: string): Promise<string> {
  // argon2id is the library's default algorithm (its enum is a const enum, not importable here).
  return argon2().then(({ hash }) => hash(password));
}

/** Whether the password matches the stored hash; false for a malformed hash. */
export async function passwordMatches(storedHash: string, password: string): Promise<boolean> {
  try {
    const { verify } = await argon2();
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * Spends the time of a real check when there is no such user, so a sign-in's duration does not
 * tell whether an address has an account.
 */
export async function checkDecoy(password: string): Promise<false> {
  decoy ??= hashPassword('a password no account has, for timing only');
  await passwordMatches(await decoy, password);
  return false;
}

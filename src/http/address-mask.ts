/**
 * Keeps email addresses out of log lines at `info` and above. The addresses customers verify are
 * theirs, and logs are read by operators, shipped to aggregators and kept for months. Our own lines
 * never name one above debug, but text from elsewhere does: an SMTP reply quotes its recipient
 * (`<alice@example.com>: User unknown`), a platform's error names the member it refused
 * (Mailchimp's "alice@example.com looks fake or invalid"), a database error's `detail` holds the
 * row. Such text reaches a line as an error's message, a failure reason or a cause, so every line
 * at info and above is masked as it is written: whatever looks like an address becomes
 * `[address]`. Debug lines are left whole: debugging a verification needs them.
 */
import { stdSerializers } from 'pino';

/** What an address is replaced with. */
export const MASKED_ADDRESS = '[address]';

/** Pino's level number of `info`: lines at it and above are masked. */
const INFO = 30;
/** Nesting followed into a logged object; deeper values are left as they are. */
const MAX_DEPTH = 6;

// A local part (plain, or quoted with spaces in it) and a domain (a name, IDN included, or an
// address literal in brackets). Wider than RFC 5321 on purpose, a false match costs a masked word;
// except for `/`, rare in addresses and common in paths: a stack's `node_modules/@scope/pkg` stays,
// and so does a URL's user (`socks5://mailvet@proxy`): the local part starts a word, never after `/`.
const ADDRESS =
  /(?<=^|[\s<>()[\]{}"'`,;:\\])(?:"[^"\r\n]{0,256}"|[^\s@<>()[\]{}"'`,;:\\/]{1,256})@(?:\[[^\]\s]{1,256}\]|[^\s@<>()[\]{}"'`,;:\\/]{1,256})/gu;

/** `text` with every address-shaped part replaced by `[address]`. */
export function maskAddresses(text: string): string {
  // Most text has no `@`: no regular expression runs for it (every request line is such text).
  return text.includes('@') ? text.replace(ADDRESS, MASKED_ADDRESS) : text;
}

/**
 * `value` with the addresses in its text masked: strings, errors (as pino writes them: message,
 * stack, causes and own fields) and plain objects and arrays, copied only where something changed.
 * Anything else (a class instance with a serializer of its own) is passed as it is.
 */
export function withoutAddresses(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskAddresses(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (value instanceof Error) return maskedError(value, depth);
  if (Array.isArray(value)) {
    const masked = value.map((item) => withoutAddresses(item, depth + 1));
    return masked.some((item, index) => item !== value[index]) ? masked : value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    const item = record[key];
    // Numbers and the like (most of a request line) cost a type check, nothing more.
    if (typeof item !== 'string' && (typeof item !== 'object' || item === null)) continue;
    const masked = withoutAddresses(item, depth + 1);
    if (masked === item) continue;
    copy ??= { ...record };
    copy[key] = masked;
  }
  return copy ?? value;
}

/** An error as pino writes it (type, message and stack with causes, own fields), masked. */
function maskedError(error: Error, depth: number): Record<string, unknown> {
  const serialized: Record<string, unknown> = { ...stdSerializers.err(error) };
  const masked = withoutAddresses(serialized, depth + 1) as Record<string, unknown>;
  // Pino serializes an `err` once more when it writes it, taking its type from the constructor
  // (a plain object's is Object) or else from `name`: it must find the error's own type.
  Object.defineProperty(masked, 'constructor', { value: undefined, enumerable: false });
  if (!Object.hasOwn(masked, 'name')) Object.defineProperty(masked, 'name', { value: serialized.type });
  return masked;
}

/**
 * Pino's `hooks.logMethod`: masks every argument of a call at info and above (the merged object,
 * the message and its interpolated values). An error given alone keeps its message as the line's
 * message, as pino would have done.
 */
export function maskedLogMethod(
  this: unknown,
  args: unknown[],
  method: (...args: unknown[]) => void,
  level: number,
): void {
  if (level < INFO) {
    method.apply(this, args);
    return;
  }
  const first = args[0];
  if (first instanceof Error) {
    // Pino would take the message from the error; it is a plain object once masked.
    const err = withoutAddresses(first) as { message?: unknown };
    const rest = args.slice(1).map((arg) => withoutAddresses(arg));
    method.apply(this, [{ err }, ...(rest.length > 0 ? rest : [err.message])]);
    return;
  }
  // The arguments are this call's own array: masked in place, nothing copied for a clean line.
  for (let index = 0; index < args.length; index++) args[index] = withoutAddresses(args[index]);
  method.apply(this, args);
}

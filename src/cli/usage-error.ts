/** Mistakes the user must fix: `main.ts` prints them without a stack and exits with code 2. */

/** A mistake in a command's arguments. */
export class UsageError extends Error {}

/** A problem with the input file (bad column name, unreadable CSV). */
export class CsvInputError extends Error {}

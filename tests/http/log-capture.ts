/**
 * Captures the app's pino output (one JSON line per entry) for tests that inspect logs.
 */

/** A writable sink for Fastify's logger, and the text written to it. */
export class LogCapture {
  readonly lines: string[] = [];

  write(line: string): void {
    this.lines.push(line);
  }

  get text(): string {
    return this.lines.join('');
  }

  /** Parsed entries. */
  entries(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

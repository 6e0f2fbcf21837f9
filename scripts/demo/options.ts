/**
 * `npm run demo -- [--port N] [--data-dir DIR]`: the demo's command line.
 */
import { parseArgs } from 'node:util';

export const DEMO_USAGE = `Usage: npm run demo -- [--port N] [--data-dir DIR]

Starts a mail world on loopback, a Mailvet server on it, a seeded account and Mailchimp and
HubSpot stand-ins; prints how to sign in and what to try. Ctrl-C stops everything.

  --port N        the dashboard's port on 127.0.0.1 (default 8080; 0 takes a free one)
  --data-dir DIR  keep the server's data in DIR (default: a temporary directory, removed at the end)
  --help          this text`;

export interface DemoOptions {
  port: number;
  /** Null: a temporary directory of the demo's own. */
  dataDir: string | null;
  help: boolean;
}

/** A command line the demo cannot run with; its message says why. */
export class DemoUsageError extends Error {}

export function parseDemoOptions(args: string[]): DemoOptions {
  let values: { port?: string; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new DemoUsageError((error as Error).message);
  }
  const port = values.port === undefined ? 8080 : Number(values.port);
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || port > 65535)) {
    throw new DemoUsageError(
      `--port must be a port number from 0 to 65535, not ${JSON.stringify(values.port)}`,
    );
  }
  const dataDir = values['data-dir'];
  if (dataDir !== undefined && dataDir.trim() === '')
    throw new DemoUsageError('--data-dir needs a directory');
  return { port, dataDir: dataDir ?? null, help: values.help === true };
}

/**
 * `mailvet verify ADDRESS... [--json]` and `mailvet verify --file in.csv --out out.csv`.
 */

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SingleBar } from 'cli-progress';
import { loadConfig } from '../config.ts';
import { createLocalCatchAllAssessor } from '../container/catch-all.ts';
import { createVerifier } from '../container/index.ts';
import type { VerificationResult } from '../verification/report.ts';
import { verifyCsvFile } from './csv-file.ts';
import { formatResult } from './format-result.ts';
import { mapOrdered } from './map-ordered.ts';
import { fileProblem } from './plain-errors.ts';
import { CsvInputError, UsageError } from './usage-error.ts';

/** Stands for the account and the list a command line has none of. */
const LOCAL_CALLER = 'command-line';

interface VerifyOptions {
  json?: boolean;
  file?: string;
  out?: string;
  column?: string;
  concurrency: string;
}

/** Runs `mailvet verify`. */
export async function runVerify(addresses: string[], options: VerifyOptions): Promise<void> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
    throw new UsageError('--concurrency must be an integer from 1 to 10000');
  }
  if (options.file === undefined && addresses.length === 0) {
    throw new UsageError('give one or more addresses, or --file in.csv');
  }
  if (options.file !== undefined && addresses.length > 0) {
    throw new UsageError('give addresses or --file, not both');
  }
  // Before anything is verified: a run that cannot read its input or write its output is refused.
  if (options.file !== undefined) {
    await readable(options.file);
    if (options.out !== undefined) await writable(options.out);
  }
  const config = loadConfig();
  const verifier = await createVerifier(config);
  // No account here: catch-all confidence reads the address, the domain's posture and, as peers,
  // the other addresses of the same command (a file's rows are not kept to serve as peers).
  const assessor = createLocalCatchAllAssessor(config, addresses);
  const verify = async (address: string) =>
    assessor.assess(LOCAL_CALLER, await verifier.verify(address), { listId: LOCAL_CALLER });
  if (options.file !== undefined) {
    await verifyFile(options.file, options, concurrency, verify);
    return;
  }
  const results: VerificationResult[] = [];
  const source = (async function* () {
    yield* addresses;
  })();
  for await (const result of mapOrdered(source, concurrency, verify)) {
    results.push(result);
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(results.length === 1 ? results[0] : results, null, 2)}\n`);
  } else {
    for (const result of results) process.stdout.write(`${formatResult(result)}\n`);
  }
}

async function verifyFile(
  file: string,
  options: VerifyOptions,
  concurrency: number,
  verify: (address: string) => Promise<VerificationResult>,
): Promise<void> {
  // A progress bar only where a person watches; never mixed into a CSV on standard output.
  const bar =
    process.stderr.isTTY && options.out !== undefined
      ? new SingleBar({
          format: 'verifying [{bar}] {percentage}% | {rows} rows | {left}',
          stream: process.stderr,
        })
      : null;
  const started = Date.now();
  bar?.start(100, 0, { rows: 0, left: timeLeft(0, 0) });
  const rows = await verifyCsvFile({
    input: file,
    output: options.out,
    column: options.column,
    concurrency,
    verify,
    onProgress: ({ rows: done, bytesRead, totalBytes }) => {
      const share = totalBytes === 0 ? 1 : bytesRead / totalBytes;
      bar?.update(Math.floor(100 * share), { rows: done, left: timeLeft(share, Date.now() - started) });
    },
  });
  bar?.update(100, { rows, left: 'done' });
  bar?.stop();
  if (options.out !== undefined) {
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(`verified ${rows} rows in ${seconds.toFixed(1)} s → ${options.out}\n`);
  }
}

/** The input file can be read: a missing or unreadable one, or a directory, is said plainly. */
async function readable(file: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
    if ((await stat(file)).isDirectory()) throw new CsvInputError(`cannot read ${file}: it is a directory`);
  } catch (error) {
    if (error instanceof CsvInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw fileProblem({ code, path: file }, 'read') ?? new CsvInputError(`cannot read ${file}: ${code}`);
  }
}

/** The output file can be written: its directory exists and takes files, and it is no directory. */
async function writable(file: string): Promise<void> {
  const directory = dirname(file);
  try {
    if (!(await stat(directory)).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
    await access(directory, constants.W_OK);
    if ((await stat(file).catch(() => null))?.isDirectory() === true)
      throw Object.assign(new Error(), { code: 'EISDIR' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fileProblem({ code, path: file }, 'write') ?? new UsageError(`cannot write ${file}: ${code}`);
  }
}

/**
 * The time left, from the share of the file read so far and the time it took: "about 2 min left";
 * "estimating…" until there is enough to go on.
 */
export function timeLeft(share: number, elapsedMs: number): string {
  if (share <= 0 || elapsedMs < 1000) return 'estimating…';
  if (share >= 1) return 'finishing';
  const leftSeconds = Math.round(((1 - share) / share) * (elapsedMs / 1000));
  if (leftSeconds < 60) return `about ${Math.max(1, leftSeconds)} s left`;
  if (leftSeconds < 3600) return `about ${Math.round(leftSeconds / 60)} min left`;
  const hours = Math.floor(leftSeconds / 3600);
  return `about ${hours} h ${Math.round((leftSeconds - hours * 3600) / 60)} min left`;
}

/**
 * `mailvet verify ADDRESS... [--json]` and `mailvet verify --file in.csv --out out.csv`.
 */
import { SingleBar } from 'cli-progress';
import { loadConfig } from '../config.ts';
import { createVerifier } from '../container/index.ts';
import type { VerificationResult } from '../verification/report.ts';
import { verifyCsvFile } from './csv-file.ts';
import { formatResult } from './format-result.ts';
import { mapOrdered } from './map-ordered.ts';
import { UsageError } from './usage-error.ts';

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
  const verifier = await createVerifier(loadConfig());
  if (options.file !== undefined) {
    await verifyFile(options.file, options, concurrency, (address) => verifier.verify(address));
    return;
  }
  const results: VerificationResult[] = [];
  const source = (async function* () {
    yield* addresses;
  })();
  for await (const result of mapOrdered(source, concurrency, (address) => verifier.verify(address))) {
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
          format: 'verifying [{bar}] {percentage}% | {rows} rows | {eta_formatted} left',
          stream: process.stderr,
        })
      : null;
  bar?.start(100, 0, { rows: 0 });
  const started = Date.now();
  const rows = await verifyCsvFile({
    input: file,
    output: options.out,
    column: options.column,
    concurrency,
    verify,
    onProgress: ({ rows: done, bytesRead, totalBytes }) =>
      bar?.update(totalBytes === 0 ? 100 : Math.floor((100 * bytesRead) / totalBytes), { rows: done }),
  });
  bar?.update(100, { rows });
  bar?.stop();
  if (options.out !== undefined) {
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(`verified ${rows} rows in ${seconds.toFixed(1)} s → ${options.out}\n`);
  }
}

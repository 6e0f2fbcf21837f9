/**
 * `mailvet`: the command line (DESIGN §5). Sub-commands live in their own files; this file only
 * declares them.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { CsvInputError } from './csv-file.ts';
import { runServe } from './serve-command.ts';
import { runVerify, UsageError } from './verify-command.ts';

const program = new Command()
  .name('mailvet')
  .description('Email verification: syntax, disposable/role/free lists, typo suggestions, DNS, SMTP, score.')
  .showHelpAfterError()
  .exitOverride();

program.command('serve').description('run the HTTP API and dashboard (npm start)').action(runServe);

program
  .command('verify')
  .description('verify addresses locally, no server needed')
  .argument('[addresses...]', 'addresses to verify')
  .option('--json', 'print results as JSON (one object for one address, an array for several)')
  .option('--file <path>', 'verify every row of a CSV file (the email column is found by header)')
  .option('--out <path>', 'with --file: write the CSV with result columns here (default: standard output)')
  .option('--column <name>', 'with --file: the email column, by header name or 1-based number')
  .option('--concurrency <n>', 'addresses verified at once', '32')
  .action(runVerify);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  if (error instanceof ConfigError || error instanceof CsvInputError || error instanceof UsageError) {
    process.stderr.write(`mailvet: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}

/**
 * `mailvet`: the command line (DESIGN §5). Sub-commands live in their own files; this file only
 * declares them and turns expected failures into a message and exit code 2.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { CsvInputError } from './csv-file.ts';
import { runKeysCreate, runKeysList, runKeysRevoke } from './keys-command.ts';
import { runMigrate } from './migrate-command.ts';
import { runServe } from './serve-command.ts';
import { UsageError } from './usage-error.ts';
import { runVerify } from './verify-command.ts';
import { runWorker } from './worker-command.ts';

const program = new Command()
  .name('mailvet')
  .description('Email verification: syntax, disposable/role/free lists, typo suggestions, DNS, SMTP, score.')
  .showHelpAfterError()
  .exitOverride();

program
  .command('serve')
  .description('run the HTTP API and dashboard (npm start), with a list-job worker in embedded mode')
  .option('--worker', 'also run a list-job worker in this process (default in embedded mode)')
  .option('--no-worker', 'run no list-job worker here (scale-out default: `mailvet worker` runs them)')
  .action(runServe);

program.command('worker').description('run a list-job worker only (scale-out)').action(runWorker);

program.command('migrate').description('apply database migrations').action(runMigrate);

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description('create a key and print it (shown once)')
  .requiredOption('--name <name>', 'a name to recognise the key by')
  .option('--account <id>', 'add the key to this existing account (default: a new account of its own)')
  .option('--plan <plan>', 'free, starter, pro, or a plan from MAILVET_PLANS (default: free)')
  .option('--monthly-quota <n>', "override the plan's monthly verifications")
  .option('--bulk-quota <n>', "override the plan's monthly bulk requests")
  .option('--rate-limit <n>', "override the plan's requests per second")
  .option('--json', 'print {"id","key","name","plan","account_id",...} as JSON')
  .action(runKeysCreate);
keys
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'as JSON')
  .action(runKeysList);
keys
  .command('revoke')
  .description('revoke a key at once')
  .argument('<id>', 'the key id')
  .action(runKeysRevoke);

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

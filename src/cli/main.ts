/**
 * `mailvet`: the command line (DESIGN §5). Sub-commands live in their own files; this file only
 * declares them and turns expected failures into a message and exit code 2.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { runAccountsCreate, runAccountsList, runAccountsUpdate, runUsersCreate } from './accounts-command.ts';
import { CsvInputError } from './csv-file.ts';
import { runKeysCreate, runKeysList, runKeysRevoke, runKeysUpdate } from './keys-command.ts';
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
  .option(
    '--plan <plan>',
    "the new account's plan: free, starter, pro, or one from MAILVET_PLANS (default: free)",
  )
  .option(
    '--monthly-quota <n>',
    "monthly verifications: the new account's, or with --account the key's own cap",
  )
  .option('--bulk-quota <n>', "monthly bulk requests: the new account's, or with --account the key's own cap")
  .option('--rate-limit <n>', "requests per second: the new account's, or with --account the key's own cap")
  .option('--json', 'print {"id","key","name","plan","account_id",...} as JSON')
  .action(runKeysCreate);
keys
  .command('update')
  .description("change a key's name or its own caps (never above its account's figures)")
  .argument('<id>', 'the key id')
  .option('--name <name>', 'a new name')
  .option('--rate-limit <n>', 'requests per second, or "none"')
  .option('--monthly-cap <n>', 'verifications a month, or "none"')
  .option('--bulk-cap <n>', 'bulk requests a month, or "none"')
  .option('--json', 'as JSON')
  .action(runKeysUpdate);
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

const accounts = program.command('accounts').description("manage customers' accounts (plans and figures)");
accounts
  .command('create')
  .description('create an account')
  .requiredOption('--name <name>', 'the customer')
  .option('--plan <plan>', 'free, starter, pro, or a plan from MAILVET_PLANS (default: free)')
  .option('--monthly-quota <n>', "override the plan's monthly verifications")
  .option('--bulk-quota <n>', "override the plan's monthly bulk requests")
  .option('--rate-limit <n>', "override the plan's requests per second")
  .option('--json', 'as JSON')
  .action(runAccountsCreate);
accounts
  .command('list')
  .description('list accounts with their figures')
  .option('--json', 'as JSON')
  .action(runAccountsList);
accounts
  .command('update')
  .description("change an account's name, plan or figures")
  .argument('<id>', 'the account id')
  .option('--name <name>', 'a new name')
  .option('--plan <plan>', 'a plan')
  .option('--monthly-quota <n>', 'monthly verifications, or "none" for the plan\'s')
  .option('--bulk-quota <n>', 'monthly bulk requests, or "none" for the plan\'s')
  .option('--rate-limit <n>', 'requests per second, or "none" for the plan\'s')
  .option('--json', 'as JSON')
  .action(runAccountsUpdate);

program
  .command('users')
  .description('manage dashboard users')
  .command('create')
  .description('create a user (password from standard input, or a one-time one printed)')
  .requiredOption('--email <email>', 'the address the user signs in with')
  .requiredOption('--account <id>', 'the account the user owns')
  .option('--json', 'as JSON')
  .action(runUsersCreate);

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

/**
 * `mailvet`: the command line. Sub-commands live in their own files; this file only
 * declares them and turns expected failures into a message and exit code 2.
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { fileProblem } from './plain-errors.ts';
import { CsvInputError, UsageError } from './usage-error.ts';

// src/cli/ under tsx and dist/cli/ once built: package.json is two folders up from either.
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/**
 * A command's action, its module loaded only when that command runs: `mailvet --help` and light
 * commands do not load the server, the verifier and the database drivers they do not use.
 */
// biome-ignore lint/suspicious/noExplicitAny: commander passes each action its own arguments
function lazy<M extends Record<string, (...args: any[]) => unknown>>(load: () => Promise<M>, name: keyof M) {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return async (...args: any[]): Promise<void> => {
    await (await load())[name]!(...args);
  };
}
const serveCommand = () => import('./serve-command.ts');
const workerCommand = () => import('./worker-command.ts');
const migrateCommand = () => import('./migrate-command.ts');
const keysCommand = () => import('./keys-command.ts');
const accountsCommand = () => import('./accounts-command.ts');
const usersCommand = () => import('./users-command.ts');
const verifyCommand = () => import('./verify-command.ts');
const doctorCommand = () => import('./doctor-command.ts');
const domainCheckCommand = () => import('./domain-check-command.ts');
const backupCommand = () => import('./backup-command.ts');
const eraseCommand = () => import('./erase-command.ts');

const program = new Command()
  .name('mailvet')
  .description('Email verification: syntax, disposable/role/free lists, typo suggestions, DNS, SMTP, score.')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride();

program
  .command('serve')
  .description('run the HTTP API and dashboard (npm start), with a list-job worker in embedded mode')
  .option('--worker', 'also run a list-job worker in this process (default in embedded mode)')
  .option('--no-worker', 'run no list-job worker here (scale-out default: `mailvet worker` runs them)')
  .action(lazy(serveCommand, 'runServe'));

program
  .command('worker')
  .description('run a list-job worker only (scale-out)')
  .action(lazy(workerCommand, 'runWorker'));

program
  .command('migrate')
  .description('apply database migrations')
  .action(lazy(migrateCommand, 'runMigrate'));

program
  .command('backup')
  .description('an online backup of the embedded database (safe while serve runs)')
  .requiredOption('--out <file>', 'write the backup here (a temporary file beside it until it is whole)')
  .option('--force', 'replace FILE when it exists')
  .option('--json', 'print {"path","bytes","counts","secret_key",...} as JSON')
  .action(lazy(backupCommand, 'runBackup'));

program
  .command('erase')
  .description("erase an address from an account's lists, feedback and caches")
  .argument('<email>', 'the address to erase')
  .requiredOption('--account <id>', 'the account')
  .option('--json', 'print {"account_id","erased"} as JSON')
  .action(lazy(eraseCommand, 'runErase'));

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description('create a key and print it (shown once)')
  .requiredOption('--name <name>', 'a name to recognise the key by')
  .option('--account <id>', 'add the key to this existing account (default: a new account of its own)')
  .option(
    '--plan <plan>',
    "the new account's plan: free, starter, pro, or one from MAILVET_PLANS (default: MAILVET_DEFAULT_PLAN, free unless set)",
  )
  .option(
    '--monthly-quota <n>',
    "monthly verifications: the new account's, or with --account the key's own cap",
  )
  .option('--bulk-quota <n>', "monthly bulk requests: the new account's, or with --account the key's own cap")
  .option('--rate-limit <n>', "requests per second: the new account's, or with --account the key's own cap")
  .option('--json', 'print {"id","key","name","plan","account_id",...} as JSON')
  .option('--init', 'make the database when there is none yet (embedded mode)')
  .action(lazy(keysCommand, 'runKeysCreate'));
keys
  .command('update')
  .description("change a key's name or its own caps (never above its account's figures)")
  .argument('<id>', 'the key id')
  .option('--name <name>', 'a new name')
  .option('--rate-limit <n>', 'requests per second, or "none"')
  .option('--monthly-cap <n>', 'verifications a month, or "none"')
  .option('--bulk-cap <n>', 'bulk requests a month, or "none"')
  .option('--json', 'as JSON')
  .action(lazy(keysCommand, 'runKeysUpdate'));
keys
  .command('list')
  .description('list keys (never the keys themselves)')
  .option('--json', 'as JSON')
  .action(lazy(keysCommand, 'runKeysList'));
keys
  .command('revoke')
  .description('revoke a key at once')
  .argument('<id>', 'the key id')
  .action(lazy(keysCommand, 'runKeysRevoke'));

const accounts = program.command('accounts').description("manage customers' accounts (plans and figures)");
accounts
  .command('create')
  .description('create an account')
  .requiredOption('--name <name>', 'the customer')
  .option(
    '--plan <plan>',
    'free, starter, pro, or a plan from MAILVET_PLANS (default: MAILVET_DEFAULT_PLAN, free unless set)',
  )
  .option('--monthly-quota <n>', "override the plan's monthly verifications")
  .option('--bulk-quota <n>', "override the plan's monthly bulk requests")
  .option('--rate-limit <n>', "override the plan's requests per second")
  .option('--json', 'as JSON')
  .option('--init', 'make the database when there is none yet (embedded mode)')
  .action(lazy(accountsCommand, 'runAccountsCreate'));
accounts
  .command('list')
  .description('list accounts with their figures')
  .option('--json', 'as JSON')
  .action(lazy(accountsCommand, 'runAccountsList'));
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
  .action(lazy(accountsCommand, 'runAccountsUpdate'));

const users = program.command('users').description('manage dashboard users and who is an operator');
users
  .command('create')
  .description('create a user (password from standard input, or a one-time one printed)')
  .requiredOption('--email <email>', 'the address the user signs in with')
  .requiredOption('--account <id>', 'the account the user owns')
  .option('--operator', "an operator of this server: sees the probe host's health and how to change plans")
  .option('--json', 'as JSON')
  .action(lazy(usersCommand, 'runUsersCreate'));
users
  .command('list')
  .description('list the users, with their account and whether each is an operator')
  .option('--account <id>', "only this account's users")
  .option('--json', 'as JSON')
  .action(lazy(usersCommand, 'runUsersList'));
users
  .command('update')
  .description('make a user an operator (--operator) or not (--no-operator)')
  .argument('<id>', 'the user id (see `mailvet users list`)')
  .option('--operator', 'make the user an operator')
  .option('--no-operator', 'make the user no longer an operator')
  .option('--json', 'as JSON')
  .action(lazy(usersCommand, 'runUsersUpdate'));

program
  .command('verify')
  .description('verify addresses locally, no server needed')
  .argument('[addresses...]', 'addresses to verify')
  .option('--json', 'print results as JSON (one object for one address, an array for several)')
  .option('--file <path>', 'verify every row of a CSV file (the email column is found by header)')
  .option('--out <path>', 'with --file: write the CSV with result columns here (default: standard output)')
  .option('--column <name>', 'with --file: the email column, by header name or 1-based number')
  .option('--concurrency <n>', 'addresses verified at once', '32')
  .action(lazy(verifyCommand, 'runVerify'));

program
  .command('doctor')
  .description(
    "check this host's fitness to probe: port 25, PTR and HELO, blocklists, SPF, resolver (exit 1 when a check fails)",
  )
  .option('--json', 'print the report as JSON')
  .action(lazy(doctorCommand, 'runDoctorCommand'));

program
  .command('domain-check')
  .description(
    'check a sending domain: SPF, DMARC, DKIM, MX and STARTTLS, PTR, MTA-STS, TLS-RPT, BIMI, blocklists; a grade and the fixes (exit 1 when a check fails)',
  )
  .argument('<domain>', 'the domain mail is sent from, e.g. example.com')
  .option(
    '--dkim-selector <selector>',
    'a DKIM selector to check (repeat for several; default: common ones)',
    (value: string, previous: string[] = []) => [...previous, value],
  )
  .option('--json', 'print the report as JSON')
  .action(lazy(domainCheckCommand, 'runDomainCheck'));

// Output piped into a command that stops reading (`| head`): stop quietly, as other tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  // Loaded only now: the configuration's schema (zod) is not what `--help` should wait for.
  const { ConfigError } = await import('../config.ts');
  // A path this user cannot read or write that no command worded itself: still one plain line.
  const plain =
    error instanceof ConfigError || error instanceof CsvInputError || error instanceof UsageError
      ? error
      : fileProblem(error);
  if (plain !== undefined) {
    process.stderr.write(`mailvet: ${plain.message}\n`);
    process.exit(2);
  }
  throw error;
}

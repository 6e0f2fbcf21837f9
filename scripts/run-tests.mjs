#!/usr/bin/env node
// Runs every tests/**/*.test.ts file with node's test runner and ends with one line
// `N passed, N failed, N skipped`. Node 20's `--test` given a folder or a quoted glob runs nothing
// and exits 0, so the files are listed explicitly here. Arguments filter files by substring.
// `--unit` (npm run test:unit) is the fast inner loop: it leaves out every file that starts a
// server or a child process, itself or through the test modules it imports (found by what they
// call, so a new such file is left out too).
// Files that time the server's answers under attack (they import responsiveness.ts) run after the
// others, one at a time: beside another test file on a two-core machine, they measured that file's
// CPU use as much as the server's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const unit = process.argv.includes('--unit');
const filters = process.argv.slice(2).filter((arg) => arg !== '--unit');
// MAILVET_TEST_EXCLUDE: comma-separated substrings of files left out of a run.
const excluded = (process.env.MAILVET_TEST_EXCLUDE ?? '').split(',').filter((part) => part !== '');
const STARTS_PROCESSES_OR_SERVERS =
  /\b(spawn|spawnSync|execFile|startServer|startListServer|spawnServe|spawnWorker|startMailchimpEmulator|startHubSpotEmulator)\(/;
const files = findTests('tests')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .filter((file) => !excluded.some((part) => file.includes(part)))
  .filter((file) => !unit || !startsProcessesOrServers(file))
  .sort();
/** Whether `file`, or a module under tests/ it imports (transitively), starts a server or a process. */
function startsProcessesOrServers(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  if (STARTS_PROCESSES_OR_SERVERS.test(text)) return true;
  for (const [, target] of text.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)) {
    const imported = join(dirname(file), target);
    if (imported.startsWith('tests/') && startsProcessesOrServers(imported, seen)) return true;
  }
  return false;
}

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'mailvet-tests-'));
const timesAnswers = (file) => /from '[^']*responsiveness\.ts'/.test(readFileSync(file, 'utf8'));
const alone = files.filter(timesAnswers);
const together = files.filter((file) => !alone.includes(file));

/** One `node --test` run of `batch` at `concurrency`; its TAP totals and exit status. */
function run(batch, concurrency, name) {
  if (batch.length === 0) return { status: 0, text: '' };
  const tap = join(scratch, `${name}.tap`);
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...batch,
    ],
    { stdio: 'inherit' },
  );
  return { status: result.status, text: readFileSync(tap, 'utf8') };
}

const runs = [run(together, 2, 'together'), run(alone, 1, 'alone')];

// Each TAP stream's closing counters are its run's totals.
const count = (name) =>
  runs.reduce(
    (sum, { text }) => sum + Number(text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0),
    0,
  );
const passed = count('pass');
// The failures the spec reporter lists under "failing tests": every test, suite or file that failed
// for a reason of its own. A suite (or file) that failed only because a test inside it failed is not
// one more failure; a describe that threw, or a file that could not load, is one, though TAP's
// `# fail` counter leaves it out.
const failed = runs.reduce((sum, { text }) => sum + ownFailures(text), 0);
const runFailed = runs.some(({ status }) => status !== 0) || failed > 0;

/** The `not ok` entries of a TAP stream whose failure is their own (not `subtestsFailed`). */
function ownFailures(text) {
  const lines = text.split('\n');
  let found = 0;
  lines.forEach((line, index) => {
    const entry = line.match(/^(\s*)not ok \d+ /);
    // A todo test may fail without failing the run.
    if (entry === null || / # TODO\b/.test(line)) return;
    const indent = entry[1].length;
    let failureType = null;
    for (let next = index + 1; next < lines.length; next++) {
      const detail = lines[next];
      if (detail.trim() !== '' && detail.length - detail.trimStart().length <= indent) break;
      const type = detail.match(/^\s*failureType: '(\w+)'/);
      if (type !== null) {
        failureType = type[1];
        break;
      }
    }
    if (failureType !== 'subtestsFailed') found++;
  });
  return found;
}
const skipped = count('skipped') + count('todo');
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${files.length} test files`);
// A run that failed with nothing listed (a crash of the runner itself) still says it failed.
const shownFailed = runFailed && failed === 0 ? 1 : failed;
console.log(`${passed} passed, ${shownFailed} failed, ${skipped} skipped`);
process.exit(!runFailed && passed > 0 ? 0 : 1);

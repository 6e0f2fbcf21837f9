#!/usr/bin/env node
// Runs every tests/**/*.test.ts file with node's test runner and ends with one line
// `N passed, N failed, N skipped`. Node 20's `--test` given a folder or a quoted glob runs nothing
// and exits 0, so the files are listed explicitly here. Arguments filter files by substring.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = findTests('tests')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'mailvet-tests-'));
const tap = join(scratch, 'results.tap');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tap}`,
    ...files,
  ],
  { stdio: 'inherit' },
);

// The TAP stream's closing counters are the whole run's totals.
const text = readFileSync(tap, 'utf8');
const count = (name) => Number(text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
const passed = count('pass');
const failed = count('fail') + count('cancelled');
const skipped = count('skipped') + count('todo');
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${files.length} test files`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(result.status === 0 && failed === 0 && passed > 0 ? 0 : 1);

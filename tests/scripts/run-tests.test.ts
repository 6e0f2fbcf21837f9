/**
 * `npm test`'s closing line counts what its "failing tests" list shows: a file that cannot load and
 * a describe that throws are failures of their own, while a suite that failed only because a test
 * inside it failed is not counted again. The runner is started, as `npm test` starts it, on a small
 * tree of test files made for the purpose.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';

const RUNNER = resolve('scripts/run-tests.mjs');
let root: string;

const FILES: Record<string, string> = {
  // Cannot load: reads a file that does not exist at the top level.
  'tests/a/unloadable.test.ts': `import { readFileSync } from 'node:fs';
import { test } from 'node:test';
const rows = readFileSync('missing/rows.jsonl', 'utf8');
test('never runs', () => { if (rows === '') throw new Error('empty'); });
`,
  // Two describes that throw while they are defined, beside a passing test.
  'tests/a/throwing-describes.test.ts': `import { describe, test } from 'node:test';
for (const name of ['first', 'second']) describe(name, () => { throw new Error('no data for ' + name); });
test('stands alone', () => {});
`,
  // One failing test inside nested suites, one passing, one todo that fails, one skipped.
  'tests/b/nested.test.ts': `import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
describe('outer', () => {
  describe('inner', () => {
    test('fails', () => assert.equal(1, 2));
    test('passes', () => {});
    test('not yet', { todo: true }, () => assert.equal(1, 2));
    test('later', { skip: true }, () => {});
  });
});
`,
  'tests/b/fine.test.ts': `import { test } from 'node:test';
test('passes too', () => {});
`,
};

before(() => {
  root = mkdtempSync(join(tmpdir(), 'mailvet-runner-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'), 'dir');
});
after(() => rmSync(root, { recursive: true, force: true }));

function runTests(...args: string[]) {
  // NODE_TEST_CONTEXT would make the inner runner report to this one instead of printing.
  const { MAILVET_TEST_EXCLUDE: _excluded, NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const run = spawnSync(process.execPath, [RUNNER, ...args], { cwd: root, encoding: 'utf8', env });
  const listed = run.stdout.slice(run.stdout.indexOf('failing tests:'));
  return {
    status: run.status,
    summary: run.stdout.match(/^(\d+) passed, (\d+) failed, (\d+) skipped$/m),
    // The list also shows a failing todo test, marked `# TODO`: not a failure of the run.
    listedFailures: run.stdout.includes('failing tests:')
      ? (listed.match(/^✖ (?!.*# TODO$)/gm)?.length ?? 0)
      : 0,
  };
}

test('the summary counts every failure the list names, each once', () => {
  const run = runTests();
  assert.equal(run.status, 1);
  assert.ok(run.summary, 'a closing line N passed, N failed, N skipped');
  const [, passed, failed, skipped] = run.summary.map(Number);
  // The unloadable file, the two describes, the failing test; not the suites around it.
  assert.equal(failed, 4);
  assert.equal(failed, run.listedFailures);
  assert.equal(passed, 3);
  assert.equal(skipped, 2);
});

test('a run with nothing failing exits 0 and says 0 failed', () => {
  const run = runTests('tests/b/fine');
  assert.equal(run.status, 0);
  assert.deepEqual(run.summary?.slice(1).map(Number), [1, 0, 0]);
});

/**
 * The repository stands alone: a plain clone has everything its tests, scripts and documents use.
 * No file may point outside it to the design folder the team keeps beside the repository (its
 * documents are not shipped; docs/api.md is the contract users read), and the public data the
 * tests read is inside, with where it came from and its licence.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

// Spelled in parts, so that this file does not name what it looks for.
const OUTSIDE = ['..' + '/shared', 'shared/' + 'DESIGN', 'shared/' + 'STYLE', 'shared/' + 'conformance'];
const DESIGN_SECTION = new RegExp(`${'DES'}IGN(?:\\.md| §|'s)`);

/** The files a clone holds (tracked) plus new ones not ignored: what the next commit can hold. */
function repositoryFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    encoding: 'utf8',
  });
  assert.equal(listed.status, 0, `git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split('\0').filter((path) => path !== '' && existsSync(path));
}

test('no file of the repository refers to the design folder beside it', () => {
  const offenders: string[] = [];
  const files = repositoryFiles();
  assert.ok(files.length > 500, `expected the whole tree, got ${files.length} files`);
  for (const path of files) {
    const text = readFileSync(path);
    if (text.includes(0)) continue; // binary (screenshots)
    const content = text.toString('utf8');
    for (const needle of OUTSIDE) if (content.includes(needle)) offenders.push(`${path}: ${needle}`);
    if (DESIGN_SECTION.test(content)) offenders.push(`${path}: a section of the design document`);
  }
  assert.deepEqual(offenders, []);
});

test('the conformance data the tests read is in the repository, with sources and licences', () => {
  const readme = readFileSync('tests/fixtures/conformance/README.md', 'utf8');
  const licences = readFileSync('tests/fixtures/conformance/LICENSES.md', 'utf8');
  for (const file of [
    'syntax/isemail-tests.jsonl',
    'syntax/isemail-tests-original.jsonl',
    'syntax/python-email-validator.jsonl',
    'syntax/hapi-address.jsonl',
    'syntax/validatorjs-isEmail.jsonl',
    'syntax/rfc3696.jsonl',
    'syntax/conflicts.jsonl',
    'typos/typo-corrections.jsonl',
  ]) {
    const path = `tests/fixtures/conformance/${file}`;
    assert.ok(existsSync(path), `${path} is missing`);
    const name = file.split('/')[1]!;
    assert.ok(readme.includes(name), `the README does not describe ${name}`);
    const rows = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    assert.ok(rows.length > 0);
    // Every row names the project it came from (conflicts.jsonl: each verdict its suite).
    for (const line of rows) {
      const row = JSON.parse(line) as { source?: unknown; verdicts?: Array<{ suite?: unknown }> };
      const named =
        typeof row.source === 'string' ||
        (Array.isArray(row.verdicts) && row.verdicts.every((verdict) => typeof verdict.suite === 'string'));
      assert.ok(named, `${path}: a row without its source: ${line}`);
    }
  }
  for (const licence of ['BSD-3-Clause', 'Unlicense', 'MIT']) assert.match(licences, new RegExp(licence));
});

/**
 * `bin/mailvet` picks what to run: the compiled `dist/` when no source is newer than it, else the
 * sources through tsx (a fresh checkout, or a source edited since the last build), and the sources
 * whenever MAILVET_FROM_SOURCE=1. Checked on a copy of the launcher whose two entry points only
 * say which one ran.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'mailvet-bin-'));
  await mkdir(join(root, 'bin'));
  await mkdir(join(root, 'src', 'cli'), { recursive: true });
  await copyFile(resolve('bin/mailvet'), join(root, 'bin', 'mailvet'));
  await copyFile(resolve('bin/build-freshness.mjs'), join(root, 'bin', 'build-freshness.mjs'));
  await writeFile(join(root, 'package.json'), '{"type": "module"}');
  await symlink(resolve('node_modules'), join(root, 'node_modules'));
  await writeFile(
    join(root, 'src', 'cli', 'main.ts'),
    "const from: string = 'sources';\nconsole.log(from);\n",
  );
});
after(() => rm(root, { recursive: true, force: true }));

const launch = async (env: Record<string, string> = {}) =>
  (
    await run(process.execPath, [join(root, 'bin', 'mailvet')], { env: { ...process.env, ...env } })
  ).stdout.trim();

async function build(at: Date): Promise<void> {
  await mkdir(join(root, 'dist', 'cli'), { recursive: true });
  const main = join(root, 'dist', 'cli', 'main.js');
  await writeFile(main, "console.log('compiled');\n");
  await utimes(main, at, at);
}

test('no build: the sources run', async () => {
  assert.equal(await launch(), 'sources');
});

test('a build newer than every source runs; a source edited after it runs from the sources', async () => {
  const source = join(root, 'src', 'cli', 'main.ts');
  await utimes(source, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
  await build(new Date('2026-01-02T00:00:00Z'));
  assert.equal(await launch(), 'compiled');
  assert.equal(await launch({ MAILVET_FROM_SOURCE: '1' }), 'sources');
  await utimes(source, new Date('2026-01-03T00:00:00Z'), new Date('2026-01-03T00:00:00Z'));
  assert.equal(await launch(), 'sources', 'never a stale build');
});

test("npm start's build step bundles a missing or stale build, and leaves a fresh one alone", async () => {
  const project = await mkdtemp(join(tmpdir(), 'mailvet-start-'));
  try {
    await mkdir(join(project, 'bin'));
    await mkdir(join(project, 'scripts'));
    await mkdir(join(project, 'src', 'cli'), { recursive: true });
    await copyFile(resolve('bin/build-freshness.mjs'), join(project, 'bin', 'build-freshness.mjs'));
    await copyFile(resolve('scripts/build-if-stale.mjs'), join(project, 'scripts', 'build-if-stale.mjs'));
    await copyFile(resolve('scripts/bundle.mjs'), join(project, 'scripts', 'bundle.mjs'));
    await symlink(resolve('node_modules'), join(project, 'node_modules'));
    await writeFile(join(project, 'package.json'), '{"type": "module"}');
    const source = join(project, 'src', 'cli', 'main.ts');
    await writeFile(source, "const from: string = 'built';\nconsole.log(from);\n");
    const buildStep = () => run(process.execPath, [join(project, 'scripts', 'build-if-stale.mjs')]);
    const compiled = join(project, 'dist', 'cli', 'main.js');

    await buildStep();
    assert.equal((await run(process.execPath, [compiled])).stdout.trim(), 'built', 'compiled when missing');
    const builtAt = (await stat(compiled)).mtimeMs;
    await buildStep();
    assert.equal((await stat(compiled)).mtimeMs, builtAt, 'a fresh build is left alone');

    await writeFile(source, "const from: string = 'rebuilt';\nconsole.log(from);\n");
    await utimes(source, new Date(builtAt + 5000), new Date(builtAt + 5000));
    await buildStep();
    assert.equal(
      (await run(process.execPath, [compiled])).stdout.trim(),
      'rebuilt',
      'compiled again when stale',
    );
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});

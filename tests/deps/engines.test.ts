/**
 * The Node versions package.json advertises (and the README repeats) are true for every installed
 * package: each one's own `engines.node`, as the lockfile records it, accepts every version of the
 * advertised range. Otherwise `npm ci` warns EBADENGINE on a Node the README says is supported, and
 * that package may use what the Node lacks.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import semver from 'semver';

interface LockedPackage {
  engines?: { node?: string } | string[];
  optional?: boolean;
}
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const advertised = manifest.engines.node;

test('every locked package supports every Node version package.json advertises', () => {
  const refused: string[] = [];
  let checked = 0;
  for (const [path, locked] of Object.entries(lock.packages)) {
    // The root, and platform packages npm leaves out here (a wasm fallback, another OS's binary).
    if (path === '' || Array.isArray(locked.engines) || (locked.optional && !existsSync(path))) continue;
    const range = locked.engines?.node;
    if (range === undefined) continue;
    checked++;
    if (!semver.subset(advertised, range)) refused.push(`${path} wants node ${range}`);
  }
  assert.ok(checked > 100, `expected the lockfile's engines, read ${checked}`);
  assert.deepEqual(refused, [], `package.json advertises ${advertised}`);
});

test('the README and the command line state the same range', () => {
  const alternatives = advertised.split(' || ');
  const said = `${alternatives.slice(0, -1).join(', ')} or ${alternatives.at(-1)}`;
  assert.ok(readFileSync('README.md', 'utf8').includes(`(${said},`), `README says ${said}`);
  assert.ok(
    readFileSync('bin/mailvet', 'utf8').includes(`needs Node.js ${said} (`),
    `bin/mailvet says ${said}`,
  );
});

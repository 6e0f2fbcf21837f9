/**
 * The benches that start `bin/mailvet` measure its build: bin/mailvet runs the TypeScript sources
 * through tsx when the build is older than a source, which starts slower and holds some 70 MB more,
 * so a run after an edit without `npm run build` would measure the wrong thing without saying so.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Makes sure `root`'s bin/mailvet will run its build: rebuilds a missing build or one older than a
 * source, and fails when that does not help.
 */
export async function ensureBuilt(root: string): Promise<void> {
  const { compiledIsFresh } = (await import(pathToFileURL(join(root, 'bin/build-freshness.mjs')).href)) as {
    compiledIsFresh: () => boolean;
  };
  if (compiledIsFresh()) return;
  const built = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0 || !compiledIsFresh()) throw new Error(`${root}: the build is missing or stale`);
}

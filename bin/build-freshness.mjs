// Whether the compiled output (dist/, from `npm run build`) is newer than every source file: only
// then is it run, so an edit since the last build is never hidden by a stale build. Shared by
// bin/mailvet and `npm start`'s build step; plain JavaScript, as both run before any build.
import { readdirSync, statSync } from 'node:fs';

export const COMPILED_ENTRY = new URL('../dist/cli/main.js', import.meta.url);
const SOURCES = new URL('../src/', import.meta.url);

/** The newest modification time under `dir`, ms; 0 when it cannot be read. */
function newest(dir) {
  let latest = 0;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      latest = Math.max(latest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
    }
  } catch {
    return 0;
  }
  return latest;
}

/** Whether dist/ was built after the last change to src/ (a missing source tree counts as built). */
export function compiledIsFresh() {
  let builtAt;
  try {
    builtAt = statSync(COMPILED_ENTRY).mtimeMs;
  } catch {
    return false;
  }
  return newest(SOURCES) <= builtAt;
}

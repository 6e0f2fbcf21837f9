#!/usr/bin/env node
// `npm start`'s first step: compiles the server (tsc → dist/) when dist/ is missing or older than a
// source, so the server starts from the build. Without TypeScript (a production install that
// skipped dev dependencies) it does nothing: bin/mailvet then runs the sources through tsx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledIsFresh } from '../bin/build-freshness.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;
if (!compiledIsFresh() && existsSync(tsc)) {
  console.error('mailvet: compiling the server (dist/ is missing or older than src/)…');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) console.error('mailvet: the build failed; running the sources instead');
}

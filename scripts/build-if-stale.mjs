#!/usr/bin/env node
// `npm start`'s first step: bundles the server (scripts/bundle.mjs → dist/cli/) when dist/ is
// missing or older than a source, so the server starts from the build. Without esbuild (it comes
// with tsx, a runtime dependency, so only a broken install lacks it) or when the bundle fails, it
// says so and bin/mailvet runs the sources through tsx.
import { compiledIsFresh } from '../bin/build-freshness.mjs';
import { bundle } from './bundle.mjs';

if (!compiledIsFresh()) {
  console.error('mailvet: bundling the server (dist/ is missing or older than src/)…');
  try {
    if (!(await bundle())) console.error('mailvet: esbuild is not installed; running the sources instead');
  } catch (error) {
    // esbuild has printed its own errors already.
    if (!Array.isArray(error?.errors)) console.error(`mailvet: ${error?.message ?? error}`);
    console.error('mailvet: the build failed; running the sources instead');
  }
}

/**
 * Dashboard benchmark: how heavy and how fast the first page is.
 *
 * - The JavaScript the first page loads: the built dist/web/index.html's module scripts and
 *   modulepreload links, each gzipped here with zlib (default level), summed; target ≤ 250 kB.
 *   The same run checks, in Chromium, that the first page requests no other script.
 * - The first page load on loopback: `/` of a real `mailvet serve` (the browser tests' harness) in
 *   Debian's Chromium, a fresh browser context each time so nothing is cached. Medians of the
 *   navigation entry's domContentLoadedEventEnd and loadEventEnd (target: load ≤ 1 s), and of the
 *   time until the sign-in form is on screen (the frame after its Email field enters the DOM: the app
 *   first asks GET /api/v1/session, then renders the sign-in page).
 *
 * Needs Chromium (/usr/bin/chromium or MAILVET_CHROMIUM) and the build (`npm run build`).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  BUILT_DASHBOARD,
  launchChromium,
  newContext,
  requireDashboard,
  startDashboardServer,
  waitUntil,
} from '../tests/dashboard/harness.ts';
import { median } from './stats.ts';

export interface DashboardBenchOptions {
  /** Measured page loads (default 15), after one load not counted. */
  loads?: number;
}

/** One script of the first page. */
export interface ScriptSize {
  path: string;
  rawBytes: number;
  gzipBytes: number;
}

/** Median, fastest and slowest of the measured loads, ms. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface DashboardFigures {
  /** Scripts named by index.html (module script and modulepreload links). */
  scripts: ScriptSize[];
  gzipBytes: number;
  rawBytes: number;
  /** Scripts Chromium requested for the first page that index.html does not name (should be none). */
  unlistedScripts: string[];
  /** The first page's scripts as the server sent them (body bytes, after any content coding) and decoded. */
  servedScriptBytes: { encoded: number; decoded: number };
  loads: number;
  domContentLoadedMs: Spread;
  loadMs: Spread;
  formVisibleMs: Spread;
  /** Targets: ≤ 250 kB gzipped, load ≤ 1 s (median). */
  meetsSize: boolean;
  meetsLoad: boolean;
  loadAverage: { before: number; after: number };
}

const SIZE_TARGET_BYTES = 250_000;
const LOAD_TARGET_MS = 1_000;
const DIST = join(BUILT_DASHBOARD, '..');

/** The paths of the scripts index.html loads at once: module scripts and modulepreload links. */
export function firstPageScripts(html: string): string[] {
  const paths: string[] = [];
  for (const [, tag, rawAttributes] of html.matchAll(/<(script|link)\b([^>]*)>/gi)) {
    const attributes = new Map<string, string>();
    for (const [, name, value] of (rawAttributes ?? '').matchAll(/([\w-]+)(?:\s*=\s*"([^"]*)")?/g)) {
      attributes.set(name!.toLowerCase(), value ?? '');
    }
    if (tag!.toLowerCase() === 'script' && attributes.has('src')) paths.push(attributes.get('src')!);
    const rel = attributes.get('rel')?.split(/\s+/) ?? [];
    if (tag!.toLowerCase() === 'link' && rel.includes('modulepreload') && attributes.has('href')) {
      paths.push(attributes.get('href')!);
    }
  }
  return paths;
}

function sizeOf(path: string): ScriptSize {
  const bytes = readFileSync(join(DIST, path));
  return { path, rawBytes: bytes.length, gzipBytes: gzipSync(bytes).length };
}

function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/**
 * Runs in the page before its own scripts: notes the moment (the next frame) the sign-in form's
 * Email field is in the document.
 */
const WATCH_FORM = `(() => {
  const mark = () => requestAnimationFrame(() => { window.formVisibleAt = performance.now(); });
  new MutationObserver((_, observer) => {
    if (document.querySelector('input[type="email"]') === null) return;
    observer.disconnect();
    mark();
  }).observe(document, { subtree: true, childList: true });
})()`;

/** The navigation entry's figures, the form's moment, and the bytes of the scripts as served. */
const NAVIGATION_TIMING = `(() => {
  const entry = performance.getEntriesByType('navigation')[0];
  const scripts = performance
    .getEntriesByType('resource')
    .filter((each) => new URL(each.name).pathname.endsWith('.js'));
  return {
    dcl: entry.domContentLoadedEventEnd,
    load: entry.loadEventEnd,
    form: window.formVisibleAt ?? 0,
    encoded: scripts.reduce((sum, each) => sum + each.encodedBodySize, 0),
    decoded: scripts.reduce((sum, each) => sum + each.decodedBodySize, 0),
  };
})()`;

interface Sample {
  dcl: number;
  load: number;
  form: number;
  encoded: number;
  decoded: number;
}

export async function benchDashboard(options: DashboardBenchOptions = {}): Promise<DashboardFigures> {
  const loads = options.loads ?? 15;
  const availability = requireDashboard('dashboard benchmark');
  if (availability.executablePath === null) throw new Error(availability.skipReason);

  const scripts = firstPageScripts(readFileSync(BUILT_DASHBOARD, 'utf8')).map(sizeOf);
  const listed = new Set(scripts.map((script) => script.path));
  const unlisted = new Set<string>();

  const loadBefore = loadavg()[0] ?? 0;
  const [server, browser] = await Promise.all([
    startDashboardServer({ plans: 'built-in' }),
    launchChromium(availability.executablePath),
  ]);
  const samples: Sample[] = [];
  try {
    for (let round = 0; round <= loads; round++) {
      // A fresh context each time: an empty cache, as on a first visit.
      const context = await newContext(browser);
      context.setDefaultTimeout(20_000);
      await context.addInitScript(WATCH_FORM);
      const page = await context.newPage();
      page.on('request', (request) => {
        if (request.resourceType() !== 'script') return;
        const path = new URL(request.url()).pathname;
        if (!listed.has(path)) unlisted.add(path);
      });
      await page.goto(server.url, { waitUntil: 'load' });
      await page.getByLabel('Email', { exact: true }).waitFor();
      const timing = await waitUntil(async () => {
        const read = (await page.evaluate(NAVIGATION_TIMING)) as Sample;
        return read.load > 0 && read.form > 0 ? read : undefined;
      }, 'the navigation timing and the form');
      // The first load warms the server and Chromium's processes: not counted.
      if (round > 0) samples.push(timing);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }

  const gzipBytes = scripts.reduce((sum, script) => sum + script.gzipBytes, 0);
  const loadMs = spread(samples.map((sample) => sample.load));
  return {
    scripts,
    gzipBytes,
    rawBytes: scripts.reduce((sum, script) => sum + script.rawBytes, 0),
    unlistedScripts: [...unlisted],
    servedScriptBytes: { encoded: samples.at(-1)?.encoded ?? 0, decoded: samples.at(-1)?.decoded ?? 0 },
    loads,
    domContentLoadedMs: spread(samples.map((sample) => sample.dcl)),
    loadMs,
    formVisibleMs: spread(samples.map((sample) => sample.form)),
    meetsSize: gzipBytes <= SIZE_TARGET_BYTES && unlisted.size === 0,
    meetsLoad: loadMs.median <= LOAD_TARGET_MS,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
  };
}

export function printDashboardFigures(f: DashboardFigures): void {
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  const ms = (s: Spread) => `${Math.round(s.median)} ms (${Math.round(s.min)}–${Math.round(s.max)})`;
  console.log(`\nDashboard first page (dist/web), \`mailvet serve\` child on loopback, Debian's Chromium`);
  console.log(
    `  JavaScript of the first page  ${kb(f.gzipBytes)} gzipped, ${kb(f.rawBytes)} raw, ${f.scripts.length} file(s) (target ≤ 250 kB): ${f.meetsSize ? 'met' : 'NOT met'}`,
  );
  for (const script of f.scripts) {
    console.log(`    ${script.path.padEnd(40)} ${kb(script.gzipBytes)} gzipped, ${kb(script.rawBytes)} raw`);
  }
  console.log(
    `  scripts the page loaded beyond index.html's: ${f.unlistedScripts.length === 0 ? 'none' : f.unlistedScripts.join(', ')}`,
  );
  const { encoded, decoded } = f.servedScriptBytes;
  console.log(
    `  scripts as served              ${kb(encoded)} over the wire for ${kb(decoded)} of script${encoded >= decoded ? ' (not compressed)' : ''}`,
  );
  console.log(`  median (fastest–slowest) of ${f.loads} loads, each in a fresh context (empty cache):`);
  console.log(`    DOMContentLoaded            ${ms(f.domContentLoadedMs)}`);
  console.log(
    `    load                        ${ms(f.loadMs)} (target ≤ 1 s): ${f.meetsLoad ? 'met' : 'NOT met'}`,
  );
  console.log(`    sign-in form on screen      ${ms(f.formVisibleMs)}`);
  console.log(
    `  load average (1 min) before ${f.loadAverage.before.toFixed(2)}, after ${f.loadAverage.after.toFixed(2)} on ${availableParallelism()} cores`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printDashboardFigures(await benchDashboard());
}

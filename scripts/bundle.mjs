#!/usr/bin/env node
// The server's build: esbuild bundles src/cli/main.ts into dist/cli/main.js, and each command's
// module (imported lazily by main.ts) with what it alone needs into chunks under dist/cli/chunks/.
// Loading a few large files instead of ~400 small ones from 60 packages is most of what `serve`
// saves at start-up (docs/benchmarks.md, "Start-up"); `keys create` still never loads the server.
// Plain JavaScript: `npm start` runs it before anything is built. Run from any directory.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = `${root}dist`;

/**
 * Left to Node to load from node_modules: native addons (better-sqlite3, argon2, and msgpackr's
 * through BullMQ), a package that reads its own files at run time (BullMQ's Lua scripts), an
 * optional require a bundle cannot resolve (pg-native), a package that import()s a CommonJS one
 * (@fastify/cookie: see checkDynamicImports), and drivers and clients loaded on demand only, which
 * a bundle would not make any faster to start.
 */
const EXTERNAL = [
  'better-sqlite3',
  '@fastify/cookie',
  '@node-rs/argon2',
  'bullmq',
  'ioredis',
  'pg',
  'nodemailer',
  'undici',
  'prom-client',
  'socks',
];

/**
 * Bundled packages that find their own files from `__dirname` (swagger-ui's page and assets,
 * swagger's package.json): each use is pointed at the package's folder in node_modules, seen from
 * the chunk. Bundling them spares `serve` loading yaml, a second @fastify/static and their
 * dependencies file by file (about 100 files).
 */
const READS_OWN_FILES = ['@fastify/swagger-ui', '@fastify/swagger'];

const CHUNKS = 'dist/cli/chunks';

/**
 * Packages that bundled ones require at load but call only on rare paths, with the functions they
 * call: the bundle holds a stand-in that requires the package from node_modules at the first call.
 * yaml (160 KB) serves the OpenAPI document as YAML (`/docs/yaml`); glob (100 KB) is
 * @fastify/static's listing of a folder at registration, which the dashboard's wildcard route
 * never asks for. Every start parsed both.
 */
const DEFERRED = { yaml: ['parse', 'stringify'], glob: ['glob'] };

// Bundled CommonJS packages call require() for Node's built-ins, and an ES module has no require;
// `__bundleDir` serves READS_OWN_FILES.
const BANNER = [
  "import { createRequire as __bundleRequire } from 'node:module';",
  "import { fileURLToPath as __bundlePath } from 'node:url';",
  'const require = __bundleRequire(import.meta.url);',
  'const __bundleDir = (relative) => __bundlePath(new URL(relative, import.meta.url));',
].join(' ');

/** The esbuild plugin that rewrites `__dirname` and `__filename` in READS_OWN_FILES. */
const ownFilesPlugin = {
  name: 'own-files',
  setup(build) {
    const packages = READS_OWN_FILES.map((name) => `/node_modules/${name}/`);
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.js$/ }, (args) => {
      const path = args.path.split(sep).join('/');
      if (!packages.some((folder) => path.includes(folder))) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!/\b__(?:dirname|filename)\b/.test(text)) return undefined;
      const fromChunks = (target) =>
        JSON.stringify(relative(`${root}${CHUNKS}`, target).split(sep).join('/'));
      return {
        // Same lines as the file, so its source map still points at the right places.
        contents: text
          .replace(/\b__dirname\b/g, `__bundleDir(${fromChunks(dirname(args.path))})`)
          .replace(/\b__filename\b/g, `__bundleDir(${fromChunks(args.path)})`),
        loader: 'js',
      };
    });
  },
};

/**
 * The esbuild plugin that replaces DEFERRED packages, where a bundled package requires them, by
 * their stand-ins. A stand-in finds the package where esbuild resolved it, seen from the chunk.
 */
const deferredPlugin = {
  name: 'deferred',
  setup(build) {
    const names = Object.keys(DEFERRED);
    const filter = new RegExp(`^(?:${names.join('|')})$`);
    build.onResolve({ filter }, async (args) => {
      if (args.pluginData?.deferred) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: 'require-call',
        resolveDir: args.resolveDir,
        pluginData: { deferred: true },
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, namespace: 'deferred', pluginData: { name: args.path } };
    });
    build.onLoad({ filter: /.*/, namespace: 'deferred' }, (args) => {
      const target = JSON.stringify(relative(`${root}${CHUNKS}`, args.path).split(sep).join('/'));
      const calls = DEFERRED[args.pluginData.name].map(
        (name) => `export const ${name} = (...args) => load().${name}(...args);`,
      );
      return {
        contents: [
          'let loaded;',
          `const load = () => (loaded ??= __bundleRequire(import.meta.url)(__bundleDir(${target})));`,
          ...calls,
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/** Bundles the CLI into dist/cli/; throws on the first error (esbuild prints it). */
export async function bundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { 'cli/main': 'src/cli/main.ts' },
    outdir,
    chunkNames: 'cli/chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // The oldest Node package.json's engines accept.
    target: 'node20.19',
    external: EXTERNAL,
    banner: { js: BANNER },
    plugins: [ownFilesPlugin, deferredPlugin],
    // Whitespace and syntax only: a tenth less to parse and hold, the same names in stack traces
    // (source positions with NODE_OPTIONS=--enable-source-maps). Names are not pinned (keepNames
    // costs 6 % of a start): a function whose name collides with another's in its chunk is renamed
    // (`parse2`), which shows in stack traces only; our errors set their `name` themselves.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    metafile: true,
    // Written below, once the checks pass: a build that fails them leaves the last one in place.
    write: false,
    logLevel: 'warning',
  });
  checkRelativePaths(result.metafile);
  checkDynamicImports(result.metafile);
  // main.js last: bin/mailvet takes its time as the build's, so the build counts once it is whole.
  const entry = `${outdir}/cli/main.js`;
  const files = result.outputFiles.sort((a, b) => (a.path === entry) - (b.path === entry));
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
  }
  removeStale(files.map((file) => file.path));
  return true;
}

/**
 * Removes what an earlier build left in dist/ and this one did not write: chunks of other hashes,
 * and the former build's one file per source. After writing, not before: a process started from
 * the old build keeps its files while the new ones are written. dist/web is the dashboard's (Vite).
 */
function removeStale(written) {
  const keep = new Set(written);
  for (const entry of readdirSync(outdir, { withFileTypes: true })) {
    if (entry.name !== 'web' && entry.name !== 'cli') rmSync(`${outdir}/${entry.name}`, { recursive: true });
  }
  for (const entry of readdirSync(`${outdir}/cli`, { withFileTypes: true, recursive: true })) {
    const path = `${entry.parentPath ?? entry.path}/${entry.name}`;
    if (entry.isFile() && !keep.has(path)) rmSync(path);
  }
}

/**
 * A source that finds a file relative to its own place (`new URL('../../package.json',
 * import.meta.url)`) must land in an output file as deep under dist/ as it is under src/: otherwise
 * the path misses the repository root. The chunk folder keeps src/http/plugins/'s depth, and
 * main.js src/cli/'s. The rewritten packages' paths are relative to the chunk folder. This check
 * fails the build if esbuild ever puts such a module elsewhere.
 */
function checkRelativePaths(metafile) {
  const depth = (path) => path.split('/').length;
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    // Both are relative to the repository root: src/…, node_modules/… and dist/….
    for (const input of Object.keys(inputs)) {
      // The rewritten packages and the deferred stand-ins find files from the chunk folder.
      const fromChunks =
        READS_OWN_FILES.some((name) => input.includes(`node_modules/${name}/`)) ||
        input.startsWith('deferred:');
      const misplaced = input.startsWith('src/')
        ? findsOwnPlace(input) && depth(input) !== depth(output)
        : fromChunks && !output.startsWith(`${CHUNKS}/`);
      if (misplaced) throw new Error(`${input} finds files from its place but is bundled in ${output}`);
    }
  }
}

/**
 * Node gives `await import()` of a CommonJS module its named exports (`ns.parseCookie`); a bundle
 * gives only `default`, so such a call would find undefined at run time. This fails the build
 * instead: the importing package goes in EXTERNAL.
 */
function checkDynamicImports(metafile) {
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    for (const { path, kind, external } of imports) {
      if (kind === 'dynamic-import' && !external && metafile.inputs[path]?.format === 'cjs') {
        throw new Error(`${input} imports the CommonJS ${path} with import(): add its package to EXTERNAL`);
      }
    }
  }
}

/** Whether a source resolves a relative path from its own URL. */
function findsOwnPlace(input) {
  const text = readFileSync(`${root}${input}`, 'utf8');
  return /import\.meta\.url/.test(text) && /['"]\.\.\//.test(text);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  if (!(await bundle())) {
    console.error('bundle: esbuild is not installed');
    process.exit(1);
  }
  console.error(`bundle: dist/cli/ in ${Math.round(performance.now() - started)} ms`);
}

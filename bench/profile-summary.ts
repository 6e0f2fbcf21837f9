/**
 * Where a CPU profile's time went: `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`.
 * Reads a `--cpu-prof` profile (BENCH_API_PROFILE=<dir> npm run bench -- api, or
 * BENCH_LISTS_PROFILE=<dir> npm run bench -- lists) and prints the share of busy time (idle and
 * GC apart) spent in each of our source files, each package, and Node's own code, then the
 * functions with the most self time. Self time only: a function's callees count for themselves.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  gcMs: number;
  byPlace: Share[];
  byFunction: Share[];
}

/** Our file (`src/http/plugins/auth.ts`), a package (`fastify`), or `node:` for Node's own code. */
export function placeOf(url: string): string {
  if (url === '') return 'node: (native)';
  const inModules = url.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const rest = url.slice(inModules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const source = url.match(/\/((?:src|bench|tests|scripts)\/.*)$/);
  if (source?.[1] !== undefined) return source[1];
  return url.startsWith('node:') ? 'node:' : url;
}

export function summarize(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const place = new Map<string, number>();
  const fn = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)?.callFrame;
    const name = frame?.functionName ?? '';
    if (name === '(idle)' || name === '(program)') {
      idle += ms;
      return;
    }
    if (name === '(garbage collector)') {
      gc += ms;
      return;
    }
    busy += ms;
    const where = placeOf(frame?.url ?? '');
    place.set(where, (place.get(where) ?? 0) + ms);
    const label = `${name || '(anonymous)'}  ${where}:${(frame?.lineNumber ?? 0) + 1}`;
    fn.set(label, (fn.get(label) ?? 0) + ms);
  });
  const shares = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms, percent: busy === 0 ? 0 : (100 * ms) / busy }));
  return { busyMs: busy, idleMs: idle, gcMs: gc, byPlace: shares(place), byFunction: shares(fn) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top, default 25]');
    process.exit(2);
  }
  const summary = summarize(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
    Number(process.argv[3] ?? 25),
  );
  const row = (share: Share) =>
    `  ${share.percent.toFixed(1).padStart(5)} %  ${share.ms.toFixed(0).padStart(7)} ms  ${share.name}`;
  console.log(
    `busy ${summary.busyMs.toFixed(0)} ms, garbage collection ${summary.gcMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`,
  );
  console.log('\nby place (self time):');
  for (const share of summary.byPlace) console.log(row(share));
  console.log('\nby function (self time):');
  for (const share of summary.byFunction) console.log(row(share));
}

/**
 * A/B of the API server of this checkout against another one's (`npm run bench:ab -- <dir>`), for
 * telling a change from the machine's noise: on a shared 2-core VM the same tree's figures swing by
 * a quarter between runs, far more than most changes. Both servers (`bench/api-servers.ts`, role
 * `api`: the cached verify route with one key) run at once; autocannon rounds alternate between
 * them in ABBA order, so a slow spell of the machine hits both alike. Compare the totals.
 *
 * The other checkout needs its own `npm ci` (or a `node_modules` link to this one's).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerEveryAddress, type Child, loadRound, startChild, stopChild, verifyBodies } from './api.ts';

const other = process.argv[2];
if (other === undefined) {
  console.error(
    'usage: npm run bench:ab -- <another checkout> [rounds per tree, default 8] [seconds, default 6]',
  );
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 8);
const seconds = Number(process.argv[4] ?? 6);
/**
 * BENCH_AB_THIS_NODE_FLAGS / BENCH_AB_OTHER_NODE_FLAGS='--max-semi-space-size=32': a server runs
 * with these Node options (an A/B of flags: give this checkout as the other one, then swap sides).
 */
function nodeFlagsOf(flags: string | undefined): string[] | undefined {
  return flags?.split(' ').filter((flag) => flag !== '');
}

const trees = [
  {
    name: `this (${fileURLToPath(new URL('..', import.meta.url))})`,
    servers: fileURLToPath(new URL('./api-servers.ts', import.meta.url)),
    nodeFlags: nodeFlagsOf(process.env.BENCH_AB_THIS_NODE_FLAGS),
  },
  {
    name: `other (${resolve(other)})`,
    servers: resolve(other, 'bench/api-servers.ts'),
    nodeFlags: nodeFlagsOf(process.env.BENCH_AB_OTHER_NODE_FLAGS),
  },
];
const bodies = verifyBodies(1000);
const children: Child[] = [];
try {
  for (const tree of trees) {
    children.push(await startChild('api', {}, undefined, tree.servers, tree.nodeFlags));
  }
  const run = (i: number, secs: number) => {
    const { port, key } = children[i]!.ready;
    const pid = children[i]!.process.pid;
    return loadRound({ port, path: '/api/v1/verify', key: key ?? '', pid }, bodies, 50, secs);
  };
  // Warm-up: the caches of both (every address answered once), then JIT.
  for (const child of children) await answerEveryAddress(child.ready.port, child.ready.key ?? '', bodies);
  await run(0, 2);
  await run(1, 2);
  const totals = [0, 0];
  // CPU time of each server over its rounds, µs (none without /proc).
  const cpuTotals: Array<number | undefined> = [0, 0];
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const figures = await run(i, seconds);
      if (figures.failures > 0) throw new Error(`${trees[i]!.name}: ${figures.failures} failed requests`);
      totals[i]! += figures.requests;
      cpuTotals[i] =
        figures.cpuMicrosPerRequest === undefined || cpuTotals[i] === undefined
          ? undefined
          : cpuTotals[i]! + figures.cpuMicrosPerRequest * figures.requests;
      console.log(
        `  ${trees[i]!.name.padEnd(60)} ${Math.round(figures.requestsPerSec).toLocaleString('en-US').padStart(7)} req/s  p99 ${figures.p99Ms} ms`,
      );
    }
  }
  const [mine, theirs] = totals as [number, number];
  console.log(
    `\nrequests served in ${rounds} × ${seconds} s each: this ${mine.toLocaleString('en-US')}, other ${theirs.toLocaleString('en-US')}`,
  );
  console.log(`this / other: ${(mine / theirs).toFixed(3)}`);
  const [myCpu, theirCpu] = cpuTotals;
  if (myCpu !== undefined && theirCpu !== undefined) {
    const perRequest = (cpu: number, requests: number) => cpu / requests;
    console.log(
      `CPU a request: this ${perRequest(myCpu, mine).toFixed(1)} µs, other ${perRequest(theirCpu, theirs).toFixed(1)} µs; this / other: ${(perRequest(myCpu, mine) / perRequest(theirCpu, theirs)).toFixed(3)} (lower is better)`,
    );
  }
} finally {
  await Promise.all(children.map(stopChild));
}

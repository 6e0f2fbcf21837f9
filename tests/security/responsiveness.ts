/**
 * How the server answers /healthz while an attack runs. The attacks these tests guard against
 * stalled the event loop for seconds, so every sample taken meanwhile was slow; a server that
 * keeps up answers nearly every sample at once. The bound is on the median: on a shared two-core
 * CI machine one sample can wait on the scheduler or a garbage collection of the test process
 * itself (which also sends the attack), and that is not what is being measured. The test runner
 * runs every file that imports this one after the others, one at a time, so no other test file
 * competes for the two cores while the answers are timed.
 */
import http from 'node:http';

export interface Responsiveness {
  samples: number[];
  medianMs: number;
  worstMs: number;
}

/** One GET /healthz over a fresh socket, from `localAddress` when given. */
export function timedHealthz(url: string, localAddress?: string): Promise<{ status: number; ms: number }> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: hostname, port, path: '/healthz', localAddress, agent: false },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }),
        );
      },
    );
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')));
  });
}

export function summarize(samples: number[]): Responsiveness {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    worstMs: sorted.at(-1) ?? Number.NaN,
  };
}

/**
 * Samples /healthz every `intervalMs` until `during` settles, and at least `minSamples` times
 * (continuing after it if the attack ended sooner). A failed /healthz rejects.
 */
export async function healthzWhile(
  url: string,
  during: Promise<unknown>,
  {
    intervalMs = 50,
    minSamples = 5,
    localAddress,
  }: { intervalMs?: number; minSamples?: number; localAddress?: string } = {},
): Promise<Responsiveness> {
  let running = true;
  const settled = during.finally(() => {
    running = false;
  });
  const samples: number[] = [];
  while (running || samples.length < minSamples) {
    const { status, ms } = await timedHealthz(url, localAddress);
    if (status !== 200) throw new Error(`/healthz answered ${status}`);
    samples.push(ms);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  await settled;
  return summarize(samples);
}

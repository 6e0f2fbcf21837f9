/**
 * HubSpot benchmark: a portal of 50,000 contacts on the emulator (every request delayed 50 ms, the
 * window at 190 requests per 10 seconds as a private app may have it), validated by a run of a
 * `mailvet serve` child (embedded: SQLite, in-process worker, probe on) over the lists bench's
 * world (100 domains on 20 SMTP hosts on loopback): all contacts read, verified and written back.
 * Measured: wall time by phase, the HubSpot requests made (target ≤ 1,100: reads and writes of
 * 100), the peak in flight (≤ 5) and in any 10 seconds (≤ 190), and the server's peak RSS (≤ 350 MB).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHubSpotEmulator } from '../tests/hubspot/emulator.ts';
import { addContact } from '../tests/hubspot/state.ts';
import { createKey } from '../tests/scale-out/processes.ts';
import { benchDomain, memory, spawnServer, startBenchWorld } from './lists.ts';

export interface HubSpotFigures {
  contacts: number;
  latencyMs: number;
  perTenSeconds: number;
  totalMs: number;
  phasesMs: { queuedReading: number; verifying: number; writing: number };
  requests: number;
  byRoute: Record<string, number>;
  peakInFlight: number;
  peakWindow: number;
  refused: number;
  peakRssMb: number;
  written: number;
  counts: Record<string, number>;
}

const DOMAINS = 100;
const HOSTS = 20;
const PER_DOMAIN = 500;
const POLL_MS = 100;
const PER_TEN_SECONDS = 190;
const LATENCY_MS = 50;

export async function benchHubSpot(): Promise<HubSpotFigures> {
  const emulator = await startHubSpotEmulator({ perTenSeconds: PER_TEN_SECONDS });
  const { world, hosts } = await startBenchWorld(DOMAINS, HOSTS);
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-hubspot-'));
  const env = {
    ...world.env,
    MAILVET_SMTP_ALLOW_PRIVATE: 'true',
    MAILVET_DATA_DIR: dataDir,
    MAILVET_RESULT_TTL: '0',
    MAILVET_LIST_RECHECK_MS: '2000',
    MAILVET_RUN_POLL_MS: '500',
    MAILVET_HUBSPOT_BASE_URL: emulator.origin,
    MAILVET_HUBSPOT_REQUESTS_PER_10S: String(PER_TEN_SECONDS),
  };
  let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
  try {
    const { portal, token } = emulator.addPortal(9_000_001);
    const emails: string[] = [];
    for (let u = 1; u <= PER_DOMAIN; u++) {
      for (let d = 1; d <= DOMAINS; d++) emails.push(`user${u}@${benchDomain(d)}`);
    }
    for (const email of emails) addContact(portal, email);
    const flags = ['--plan', 'pro', '--monthly-quota', '1000000', '--rate-limit', '1000'];
    const { key } = await createKey('bench hubspot', flags, env);
    server = await spawnServer(env);
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${server!.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
      });
      const body = await response.text();
      if (response.status >= 300)
        throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body}`);
      return JSON.parse(body) as Record<string, unknown>;
    };
    const json = { 'content-type': 'application/json' };
    emulator.latencyMs = LATENCY_MS;
    const started = performance.now();
    const integration = await api('/integrations', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ provider: 'hubspot', api_key: token }),
    });
    const run = await api(`/integrations/${integration.id}/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ audience_id: 'all' }),
    });
    const entered: Record<string, number> = {};
    let view: { state: string; message: string | null; counts: Record<string, number> };
    for (;;) {
      view = (await api(`/integrations/${integration.id}/runs/${run.id}`)) as unknown as typeof view;
      entered[view.state] ??= performance.now() - started;
      if (['completed', 'failed', 'cancelled'].includes(view.state)) break;
      if (performance.now() - started > 900_000)
        throw new Error(`the run is still ${view.state} after 15 minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const totalMs = performance.now() - started;
    if (view.state !== 'completed') throw new Error(`the run ended ${view.state}: ${view.message}`);
    const peakRssMb = (await memory(server.pid)).peakKb / 1024;
    const unwritten = [...portal.contacts.values()].filter((contact) => !contact.properties.mailvet_status);
    if (unwritten.length > 0) throw new Error(`${unwritten.length} contacts were not written back`);
    const byRoute: Record<string, number> = {};
    for (const request of emulator.requests) {
      const route = `${request.method} ${request.path.replace(/\/\d+(?=\/|$)/g, '/{id}')}`;
      byRoute[route] = (byRoute[route] ?? 0) + 1;
    }
    const at = (state: string) => entered[state] ?? totalMs;
    return {
      contacts: emails.length,
      latencyMs: LATENCY_MS,
      perTenSeconds: PER_TEN_SECONDS,
      totalMs,
      phasesMs: {
        queuedReading: at('verifying'),
        verifying: at('writing') - at('verifying'),
        writing: totalMs - at('writing'),
      },
      requests: emulator.requests.length,
      byRoute,
      peakInFlight: emulator.peakInFlight,
      peakWindow: emulator.peakWindow,
      refused: emulator.requests.filter((request) => request.status === 429).length,
      peakRssMb,
      written: view.counts.written ?? 0,
      counts: view.counts,
    };
  } finally {
    await server?.stop();
    await Promise.all([world.close(), emulator.close(), ...hosts.map((host) => host.close())]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printHubSpotFigures(f: HubSpotFigures): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `\nHubSpot run, ${fmt(f.contacts)} contacts on the emulator (${f.latencyMs} ms a request, ${f.perTenSeconds} per 10 s), ` +
      '`mailvet serve` child (SQLite, in-process worker, probe on), 100 domains on 20 SMTP hosts',
  );
  console.log(
    `  connect + POST → completed    ${s(f.totalMs)} (reading ${s(f.phasesMs.queuedReading)}, verifying ${s(f.phasesMs.verifying)}, writing ${s(f.phasesMs.writing)})`,
  );
  console.log(
    `  HubSpot requests              ${fmt(f.requests)} (target ≤ 1,100): ${verdict(f.requests <= 1100)}; ${Object.entries(
      f.byRoute,
    )
      .map(([route, n]) => `${route} ${n}`)
      .join(', ')}`,
  );
  console.log(
    `  peak in flight                ${f.peakInFlight} (target ≤ 5): ${verdict(f.peakInFlight <= 5)}`,
  );
  console.log(
    `  peak in any 10 s              ${f.peakWindow} (target ≤ ${f.perTenSeconds}): ${verdict(f.peakWindow <= f.perTenSeconds)}; 429s ${f.refused}`,
  );
  console.log(
    `  server peak RSS (VmHWM)       ${fmt(f.peakRssMb)} MB (target < 350): ${verdict(f.peakRssMb < 350)}`,
  );
  console.log(
    `  written back                  ${fmt(f.written)}; valid ${fmt(f.counts.valid ?? 0)}, risky ${fmt(f.counts.risky ?? 0)}, invalid ${fmt(f.counts.invalid ?? 0)}`,
  );
}

/**
 * Mailchimp benchmark: a 50,000-member audience on the emulator (every request delayed 50 ms, as a
 * distant API is), validated by a run of a `mailvet serve` child (embedded: SQLite, in-process
 * worker, probe on) over the lists bench's world (100 domains on 20 SMTP hosts on loopback): read,
 * verified and written back. Measured: wall time by phase, the Mailchimp requests made (target
 * ≤ 200), the peak of requests in flight (≤ 10, Mailchimp's limit), and the server's peak RSS
 * (≤ 350 MB). The floor, run right after on the same world and server: the same 50,000 addresses
 * uploaded as a plain list (CSV); the ratio says what the integration adds to the verification.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListView } from '../src/lists/list-view.ts';
import { startMailchimpEmulator } from '../tests/mailchimp/emulator.ts';
import { createKey } from '../tests/scale-out/processes.ts';
import { benchDomain, memory, spawnServer, startBenchWorld } from './lists.ts';

export interface MailchimpFigures {
  members: number;
  latencyMs: number;
  totalMs: number;
  phasesMs: { queuedReading: number; verifying: number; writing: number };
  requests: number;
  byRoute: Record<string, number>;
  batchOperations: number;
  maxInFlight: number;
  peakRssMb: number;
  written: number;
  counts: Record<string, number>;
  /** The same addresses as a plain list: POST → completed, ms. */
  listFloorMs: number;
}

const DOMAINS = 100;
const HOSTS = 20;
const PER_DOMAIN = 500;
const POLL_MS = 100;

interface RunView {
  state: string;
  list_id: string | null;
  message: string | null;
  counts: Record<string, number>;
}

export async function benchMailchimp(): Promise<MailchimpFigures> {
  const emulator = await startMailchimpEmulator();
  const { world, hosts } = await startBenchWorld(DOMAINS, HOSTS);
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-bench-mailchimp-'));
  const env = {
    ...world.env,
    MAILVET_SMTP_ALLOW_PRIVATE: 'true',
    MAILVET_DATA_DIR: dataDir,
    MAILVET_RESULT_TTL: '0',
    MAILVET_LIST_RECHECK_MS: '2000',
    MAILVET_RUN_POLL_MS: '500',
    MAILVET_MAILCHIMP_BASE_URL: emulator.baseUrlTemplate.replace(/\/3\.0$/, ''),
  };
  let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
  try {
    const account = emulator.addAccount({ name: 'Bench Shop' });
    const audience = emulator.addAudience(account, { name: 'Fifty thousand' });
    const emails: string[] = [];
    for (let u = 1; u <= PER_DOMAIN; u++) {
      for (let d = 1; d <= DOMAINS; d++) emails.push(`user${u}@${benchDomain(d)}`);
    }
    for (const email of emails) emulator.addMember(audience, { email, status: 'subscribed' });
    const flags = ['--plan', 'pro', '--monthly-quota', '1000000', '--rate-limit', '1000'];
    const { key } = await createKey('bench mailchimp', flags, env);
    const { key: floorKey } = await createKey('bench floor', flags, env);
    server = await spawnServer(env);
    const api = async (path: string, init: RequestInit = {}, apiKey = key) => {
      const response = await fetch(`${server!.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${apiKey}`, ...(init.headers as Record<string, string>) },
      });
      const body = await response.text();
      if (response.status >= 300)
        throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body}`);
      return JSON.parse(body) as Record<string, unknown>;
    };
    const json = { 'content-type': 'application/json' };
    const integration = await api('/integrations', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ provider: 'mailchimp', api_key: account.apiKey }),
    });
    emulator.resetStats(account);
    emulator.latencyMs = 50;

    const started = performance.now();
    const run = await api(`/integrations/${integration.id}/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ audience_id: audience.id }),
    });
    const entered: Record<string, number> = {};
    let view: RunView;
    for (;;) {
      view = (await api(`/integrations/${integration.id}/runs/${run.id}`)) as unknown as RunView;
      entered[view.state] ??= performance.now() - started;
      if (['completed', 'failed', 'cancelled'].includes(view.state)) break;
      if (performance.now() - started > 600_000)
        throw new Error(`the run is still ${view.state} after 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const totalMs = performance.now() - started;
    if (view.state !== 'completed') throw new Error(`the run ended ${view.state}: ${view.message}`);
    const peakRssMb = (await memory(server.pid)).peakKb / 1024;
    const stats = emulator.stats(account);
    const unwritten = emails.filter(
      (email) => emulator.member(audience, email)?.mergeFields.MV_STATUS === undefined,
    );
    if (unwritten.length > 0) throw new Error(`${unwritten.length} members were not written back`);

    // The floor: the same addresses as a plain list, on the same server and world.
    emulator.latencyMs = 0;
    const floorStarted = performance.now();
    const list = (await api(
      '/lists?name=floor',
      { method: 'POST', headers: { 'content-type': 'text/csv' }, body: `email\n${emails.join('\n')}\n` },
      floorKey,
    )) as unknown as ListView;
    for (;;) {
      const current = (await api(`/lists/${list.id}`, {}, floorKey)) as unknown as ListView;
      if (current.state === 'completed') break;
      if (performance.now() - floorStarted > 600_000) throw new Error('the floor list did not complete');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const listFloorMs = performance.now() - floorStarted;
    const at = (state: string) => entered[state] ?? totalMs;
    return {
      members: emails.length,
      latencyMs: 50,
      totalMs,
      phasesMs: {
        queuedReading: at('verifying'),
        verifying: at('writing') - at('verifying'),
        writing: totalMs - at('writing'),
      },
      requests: stats.requests,
      byRoute: stats.byRoute,
      batchOperations: stats.batchOperations,
      maxInFlight: stats.maxInFlight,
      peakRssMb,
      written: view.counts.written ?? 0,
      counts: view.counts,
      listFloorMs,
    };
  } finally {
    await server?.stop();
    await Promise.all([world.close(), emulator.close(), ...hosts.map((host) => host.close())]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printMailchimpFigures(f: MailchimpFigures): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(
    `\nMailchimp run, ${fmt(f.members)}-member audience on the emulator (${f.latencyMs} ms a request), ` +
      '`mailvet serve` child (SQLite, in-process worker, probe on), 100 domains on 20 SMTP hosts',
  );
  console.log(
    `  POST → completed              ${s(f.totalMs)} (reading ${s(f.phasesMs.queuedReading)}, verifying ${s(f.phasesMs.verifying)}, writing ${s(f.phasesMs.writing)})`,
  );
  console.log(
    `  same addresses as a list      ${s(f.listFloorMs)}: the run takes ${(f.totalMs / f.listFloorMs).toFixed(2)}× the plain list`,
  );
  console.log(
    `  Mailchimp requests            ${fmt(f.requests)} (target ≤ 200): ${verdict(f.requests <= 200)}; ${Object.entries(
      f.byRoute,
    )
      .map(([route, n]) => `${route} ${n}`)
      .join(', ')}`,
  );
  console.log(`  operations inside batches     ${fmt(f.batchOperations)}`);
  console.log(
    `  peak requests in flight       ${f.maxInFlight} (target ≤ 10): ${verdict(f.maxInFlight <= 10)}`,
  );
  console.log(
    `  server peak RSS (VmHWM)       ${fmt(f.peakRssMb)} MB (target ≤ 350): ${verdict(f.peakRssMb <= 350)}`,
  );
  console.log(
    `  written back                  ${fmt(f.written)}; valid ${fmt(f.counts.valid ?? 0)}, risky ${fmt(f.counts.risky ?? 0)}, invalid ${fmt(f.counts.invalid ?? 0)}`,
  );
}

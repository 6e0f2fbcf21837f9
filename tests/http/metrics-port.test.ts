/**
 * MAILVET_METRICS_PORT: `/metrics` on a listener of its own, started by the real server start
 * (and by `mailvet worker`), while the API port has no such route; with MAILVET_METRICS_TOKEN too,
 * both ask for the token. A list run by the embedded worker moves the rows counter.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueApiKey } from '../../src/accounts/key-issuance.ts';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { runJsonProcesses } from '../helpers/json-processes.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';
import { spawnWorker } from '../scale-out/processes.ts';
import { familyOf, sampleValue } from './metrics-scrape.ts';

const TOKEN = 'port-token-abcdef0123456789';

let dns: DnsWorld;
before(async () => {
  dns = await startDnsWorld();
});
after(() => dns.close());

async function start(
  env: Record<string, string>,
): Promise<{ running: RunningServer; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-metrics-port-'));
  const running = await startServer(
    loadConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_DNS_SERVERS: dns.servers,
      MAILVET_DNS_CONTROL_NAMES: '',
      MAILVET_METRICS_PORT: '0',
      ...env,
    }),
    { handleSignals: false, logger: false },
  );
  return {
    running,
    close: async () => {
      await running.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

test('prom-client is loaded only when metrics are on (start-up time and idle memory)', async () => {
  const [off, withPort, withToken] = await runJsonProcesses<{ loaded: boolean; enabled: boolean }>(
    'tests/http/metrics-lazy-load.ts',
    [{}, { MAILVET_METRICS_PORT: '0' }, { MAILVET_METRICS_TOKEN: TOKEN }],
    'metrics lazy load',
  );
  assert.deepEqual(off, { loaded: false, enabled: false });
  assert.deepEqual(withPort, { loaded: true, enabled: true });
  assert.deepEqual(withToken, { loaded: true, enabled: true });
});

describe('MAILVET_METRICS_PORT', () => {
  test('the metrics port serves /metrics and nothing else; the API port has no /metrics', async () => {
    const { running, close } = await start({});
    try {
      assert.ok(running.metricsUrl, 'the listener is started');
      const metricsUrl = new URL(running.metricsUrl);
      assert.equal(metricsUrl.hostname, '127.0.0.1', 'bound to HOST');
      assert.notEqual(metricsUrl.port, new URL(running.url).port);
      const scrape = await fetch(running.metricsUrl);
      assert.equal(scrape.status, 200);
      assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await scrape.text();
      assert.equal(familyOf(text, 'mailvet_http_requests_total')?.type, 'counter');
      assert.equal(familyOf(text, 'mailvet_queue_jobs')?.type, 'gauge');

      const onApi = await fetch(`${running.url}/metrics`);
      assert.equal(onApi.status, 404);
      const body = (await onApi.json()) as Record<string, unknown>;
      assert.equal(body.code, 'not_found');

      const elsewhere = await fetch(new URL('/api/v1/verify', running.metricsUrl));
      assert.equal(elsewhere.status, 404);
      assert.equal(((await elsewhere.json()) as Record<string, unknown>).code, 'not_found');
      const posted = await fetch(running.metricsUrl, { method: 'POST' });
      assert.equal(posted.status, 404);
    } finally {
      await close();
    }
    assert.ok(
      await fetch(running.metricsUrl!).then(
        () => false,
        () => true,
      ),
      'the listener closes with the server',
    );
  });

  test('a list run by the embedded worker moves the list rows and verifications counters', async () => {
    const { running, close } = await start({});
    try {
      const { key } = await issueApiKey(running.store, { name: 'lists', plan: 'free', rateLimit: 1000 });
      const earlier = await (await fetch(running.metricsUrl!)).text();
      const emails = ['ann@multi-mx.test', 'ben@multi-mx.test', 'ann@multi-mx.test', 'not an address'];
      const created = await fetch(`${running.url}/api/v1/lists`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ emails }),
      });
      assert.equal(created.status, 202);
      const { id } = (await created.json()) as { id: string };
      let state = '';
      for (let i = 0; i < 200 && state !== 'completed'; i++) {
        const list = await fetch(`${running.url}/api/v1/lists/${id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        state = ((await list.json()) as { state: string }).state;
        if (state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(state, 'completed');
      const now = await (await fetch(running.metricsUrl!)).text();
      // Four rows, three addresses (a duplicate row shares its address's result).
      assert.equal(
        sampleValue(now, 'mailvet_list_rows_processed_total') -
          sampleValue(earlier, 'mailvet_list_rows_processed_total'),
        emails.length,
      );
      assert.equal(
        sampleValue(now, 'mailvet_verifications_total', {
          status: 'INVALID_SYNTAX',
          reason: 'syntax_invalid',
        }) -
          sampleValue(earlier, 'mailvet_verifications_total', {
            status: 'INVALID_SYNTAX',
            reason: 'syntax_invalid',
          }),
        1,
      );
      assert.equal(
        sampleValue(now, 'mailvet_http_requests_total', {
          method: 'POST',
          route: '/api/v1/lists',
          status_code: '202',
        }),
        1,
      );
      assert.equal(sampleValue(now, 'mailvet_queue_jobs', { state: 'waiting' }), 0);
    } finally {
      await close();
    }
  });

  test('with MAILVET_METRICS_TOKEN too, the metrics port and the API port both ask for it', async () => {
    const { running, close } = await start({ MAILVET_METRICS_TOKEN: TOKEN });
    try {
      const bare = await fetch(running.metricsUrl!);
      assert.equal(bare.status, 401);
      const refused = (await bare.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(refused).sort(), ['code', 'errors', 'message', 'request_id']);
      assert.equal(refused.code, 'unauthorized');
      const wrong = await fetch(running.metricsUrl!, { headers: { authorization: `Bearer ${TOKEN}0` } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
      const right = await fetch(running.metricsUrl!, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(right.status, 200);
      assert.ok(familyOf(await right.text(), 'mailvet_verifications_total'));
      const onApi = await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(onApi.status, 200);
      assert.equal((await fetch(`${running.url}/metrics`)).status, 401);
    } finally {
      await close();
    }
  });

  test('`mailvet worker` serves its own /metrics on the port', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-metrics-worker-'));
    const worker = await spawnWorker({
      HOST: '127.0.0.1',
      MAILVET_DATA_DIR: dataDir,
      MAILVET_SMTP_PROBE: 'false',
      MAILVET_DNS_SERVERS: dns.servers,
      MAILVET_METRICS_PORT: '0',
    });
    try {
      const line = worker.lines.map((text) => /"msg":"metrics on (http:\/\/[^"]+)"/.exec(text)).find(Boolean);
      assert.ok(line, `the worker logs its metrics address: ${worker.lines.join('\n')}`);
      const scrape = await fetch(line[1]!);
      assert.equal(scrape.status, 200);
      const text = await scrape.text();
      assert.equal(familyOf(text, 'mailvet_list_rows_processed_total')?.type, 'counter');
      assert.equal(familyOf(text, 'process_cpu_user_seconds_total')?.type, 'counter');
    } finally {
      await worker.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

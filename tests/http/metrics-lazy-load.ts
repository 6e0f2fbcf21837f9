/**
 * Run in a process of its own by the metrics suite: wires the services with the environment given
 * as JSON in argv[2] and prints whether prom-client was loaded (it is CommonJS, so Node's require
 * cache lists it however it was imported).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/container/index.ts';
import { createLogger } from '../../src/container/logger.ts';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const dataDir = await mkdtemp(join(tmpdir(), 'mailvet-lazy-'));
const services = await createServices(
  loadConfig({ MAILVET_DATA_DIR: dataDir, MAILVET_SMTP_PROBE: 'false', ...env }),
  { log: createLogger(false) },
);
const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) =>
  path.includes(`${join('node_modules', 'prom-client')}`),
);
await services.close();
await rm(dataDir, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ loaded, enabled: services.metrics.enabled }));

/**
 * Run as a child process: starts the server on the configuration in the environment, stops it, and
 * prints (as JSON) every bare package name the process imported meanwhile, seen by a resolve hook.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const seen = new Set<string>();
port1.on('message', (specifier: string) => seen.add(specifier));
const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (!/^(node:|data:|file:|\\.|\\/)/.test(specifier)) port.postMessage(specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, {
  data: { port: port2 },
  transferList: [port2],
});

const { loadConfig } = await import('../../src/config.ts');
const { startServer } = await import('../../src/server.ts');
const server = await startServer(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }), {
  logger: false,
  handleSignals: false,
});
const healthz = await fetch(`${server.url}/healthz`);
await server.close();
// The hook's last messages arrive on the next turns of the event loop.
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
process.stdout.write(`${JSON.stringify({ healthz: healthz.status, packages: [...seen] })}\n`);

import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import { describe, test } from 'node:test';
import { BEHAVIOURS } from './behaviours.ts';
import {
  DEAD_MX_ADDRESS,
  type MailWorld,
  PRIVATE_MX_ADDRESS,
  startMailWorld,
  WORLD_DOMAINS,
} from './mail-world.ts';
import { SmtpTestClient } from './smtp-test-client.ts';

function resolverFor(world: MailWorld): Resolver {
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([world.servers]);
  // MX records as the other Node versions give them: Node 24 adds `type: 'MX'` to each.
  const resolveMx = resolver.resolveMx.bind(resolver);
  resolver.resolveMx = async (hostname: string) =>
    (await resolveMx(hostname)).map(({ exchange, priority }) => ({ exchange, priority }));
  return resolver;
}

/** Whether a TCP connect to `host:port` is refused. */
function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function withWorld(run: (world: MailWorld) => Promise<void>): Promise<void> {
  const world = await startMailWorld();
  try {
    await run(world);
  } finally {
    await world.close();
  }
}

describe('mail world', () => {
  test('starts every host on its own loopback address, all on one port, in well under a second', async () => {
    const started = performance.now();
    const world = await startMailWorld();
    const elapsed = performance.now() - started;
    try {
      assert.ok(elapsed < 1000, `started in ${elapsed.toFixed(0)} ms`);
      const hosts = BEHAVIOURS.map((behaviour) => world.hosts[behaviour]);
      assert.equal(new Set(hosts.map((host) => host.host)).size, BEHAVIOURS.length);
      assert.ok(hosts.every((host) => host.port === world.smtpPort && /^127\.0\.0\.\d+$/.test(host.host)));
      assert.equal(world.hosts['accept-known'].host, '127.0.0.2');
    } finally {
      await world.close();
    }
  });

  test('DNS sends each behaviour domain to its host', async () => {
    await withWorld(async (world) => {
      const resolver = resolverFor(world);
      for (const behaviour of BEHAVIOURS) {
        const domain = WORLD_DOMAINS[behaviour];
        const mx = await resolver.resolveMx(domain);
        assert.deepEqual(mx, [{ exchange: `mx.${domain}`, priority: 10 }], domain);
        assert.deepEqual(await resolver.resolve4(`mx.${domain}`), [world.hosts[behaviour].host], domain);
      }
    });
  });

  test('deadfirst.test: a dead first MX, then the accepting host', async () => {
    await withWorld(async (world) => {
      const resolver = resolverFor(world);
      const mx = (await resolver.resolveMx('deadfirst.test')).sort((a, b) => a.priority - b.priority);
      assert.deepEqual(
        mx.map((record) => record.priority),
        [10, 20],
      );
      assert.deepEqual(await resolver.resolve4(mx[0]?.exchange ?? ''), [DEAD_MX_ADDRESS]);
      assert.deepEqual(await resolver.resolve4(mx[1]?.exchange ?? ''), [world.hosts['accept-known'].host]);
      assert.equal(await refused(DEAD_MX_ADDRESS, world.smtpPort), true, 'nothing listens on the dead MX');
    });
  });

  test('private-mx.test points at 10.0.0.1 (for the SSRF guard; never connected to)', async () => {
    await withWorld(async (world) => {
      const resolver = resolverFor(world);
      const [mx] = await resolver.resolveMx('private-mx.test');
      assert.deepEqual(await resolver.resolve4(mx?.exchange ?? ''), [PRIVATE_MX_ADDRESS]);
    });
  });

  test('env points the service at the world with short timeouts', async () => {
    await withWorld(async (world) => {
      assert.equal(world.env.MAILVET_DNS_SERVERS, world.servers);
      assert.equal(world.env.MAILVET_SMTP_PORT, String(world.smtpPort));
      assert.equal(world.env.MAILVET_SMTP_ALLOW_PRIVATE, 'true');
      for (const key of [
        'MAILVET_SMTP_CONNECT_TIMEOUT_MS',
        'MAILVET_SMTP_TIMEOUT_MS',
        'MAILVET_DNS_TIMEOUT_MS',
      ]) {
        assert.ok(Number(world.env[key]) > 0 && Number(world.env[key]) <= 1000, key);
      }
    });
  });

  test('extra zones and per-host tuning are honoured', async () => {
    const world = await startMailWorld({
      zones: { 'extra.test': { mx: [{ exchange: 'mx.accept.test', priority: 5 }] } },
      mailboxes: ['only'],
      tune: { 'too-many-recipients': { maxRecipients: 1 } },
    });
    try {
      assert.deepEqual(await resolverFor(world).resolveMx('extra.test'), [
        { exchange: 'mx.accept.test', priority: 5 },
      ]);
      const host = world.hosts['too-many-recipients'];
      const client = await SmtpTestClient.connect(host.host, host.port);
      await client.readReply();
      await client.command('EHLO probe.mailvet.test');
      await client.command('MAIL FROM:<probe@mailvet.test>');
      assert.equal(
        (await client.command('RCPT TO:<alice@toomany.test>')).code,
        550,
        'alice is not a mailbox here',
      );
      assert.equal((await client.command('RCPT TO:<only@toomany.test>')).code, 250);
      assert.equal((await client.command('RCPT TO:<only2@toomany.test>')).code, 452);
      client.destroy();
    } finally {
      await world.close();
    }
  });

  test('two worlds run at once on different ports, each counting its own connections', async () => {
    const [one, two] = await Promise.all([startMailWorld(), startMailWorld()]);
    try {
      assert.notEqual(one.smtpPort, two.smtpPort);
      assert.notEqual(one.servers, two.servers);
      for (const world of [one, two]) {
        const host = world.hosts['catch-all'];
        const client = await SmtpTestClient.connect(host.host, host.port);
        assert.equal((await client.readReply()).code, 220);
        client.destroy();
      }
      assert.equal(one.hosts['catch-all'].stats.connections, 1);
      assert.equal(two.hosts['catch-all'].stats.connections, 1);
      one.resetStats();
      assert.equal(one.hosts['catch-all'].stats.connections, 0);
      assert.equal(two.hosts['catch-all'].stats.connections, 1);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  test('close() frees every SMTP port and the DNS server, even with clients connected', async () => {
    const world = await startMailWorld();
    const tarpit = world.hosts.tarpit;
    const stuck = await SmtpTestClient.connect(tarpit.host, tarpit.port);
    const accept = world.hosts['accept-known'];
    const open = await SmtpTestClient.connect(accept.host, accept.port);
    const started = Date.now();
    await world.close();
    assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
    await stuck.closed(1000);
    await open.closed(1000);
    for (const behaviour of BEHAVIOURS) {
      assert.equal(await refused(world.hosts[behaviour].host, world.smtpPort), true, behaviour);
    }
    const [address, port] = world.servers.split(':');
    assert.equal(await refused(address ?? '', Number(port)), true, 'DNS over TCP is gone');
  });
});

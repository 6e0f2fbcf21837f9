/**
 * Helpers of the emulator's tests: a JSON client with Basic auth, the problem-document assertion, the
 * batch archive read with the system's `tar`, and a loopback webhook receiver.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: Mailchimp's documents are inspected freely
export type Json = Record<string, any>;

/** A JSON answer: status, headers and the parsed body. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/** A request to `baseUrl + path` with Basic auth (any user name, `key` as password), JSON in and out. */
export async function basicRequest(
  baseUrl: string,
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Basic ${Buffer.from(`anystring:${key}`).toString('base64')}`,
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
}

/** The subscriber hash. */
export function md5(email: string): string {
  return createHash('md5').update(email.toLowerCase()).digest('hex');
}

/** Asserts a problem+json document of that status and title. */
export function assertProblem(result: Answer, status: number, title: string) {
  assert.equal(result.status, status, JSON.stringify(result.body));
  assert.match(result.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(result.body.title, title);
  assert.equal(result.body.status, status);
  assert.equal(result.body.type, 'https://mailchimp.com/developer/marketing/docs/errors/');
  assert.equal(typeof result.body.detail, 'string');
  assert.equal(typeof result.body.instance, 'string');
}

/** Extracts a .tar.gz with the system's tar and returns every JSON file's parsed content. */
export async function readArchive(bytes: Buffer): Promise<{ names: string[]; results: Json[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'mc-batch-'));
  try {
    await writeFile(join(dir, 'results.tar.gz'), bytes);
    const tar = spawnSync('tar', ['-xzf', 'results.tar.gz'], { cwd: dir, encoding: 'utf8' });
    assert.equal(tar.status, 0, tar.stderr);
    const names = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.json')).sort();
    const results: Json[] = [];
    for (const name of names)
      results.push(...(JSON.parse(await readFile(join(dir, name), 'utf8')) as Json[]));
    return { names, results };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A loopback receiver: answers GET with `getStatus`, records every request. */
export async function receiver(getStatus = 200) {
  const seen: { method: string; contentType: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', contentType: req.headers['content-type'] ?? '', body });
      res.writeHead(req.method === 'GET' ? getStatus : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/mailchimp/token`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The README's "Try it without internet: `npm run demo`", done as a newcomer does it: the demo
 * (scripts/demo.ts) as a child process on a free port, its printed lines read, then each one used
 * as printed: sign in with the printed email and password, verify every printed address with the
 * printed key and find the verdict printed for it, upload the printed sample list and see it
 * complete, find the Mailchimp and HubSpot stand-ins connected (a run of each completes and the
 * HubSpot contacts carry their verdicts), run the printed `curl` and `mailvet verify`
 * lines, and finally Ctrl-C: exit 0, the temporary directory gone, the server no longer answering.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEMO_ADDRESSES } from '../../scripts/demo/addresses.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted on field by field
type ApiJson = any;

/** A verdict line as printed: the address, its status and reason, and the rest of the line. */
interface Verdict {
  email: string;
  status: string;
  reason: string;
  line: string;
}

interface Printed {
  url: string;
  email: string;
  password: string;
  key: string;
  sampleList: string;
  dataDir: string;
  verdicts: Verdict[];
  curl: string;
  exports: Record<string, string>;
  cli: string[];
}

let demo: ChildProcess;
let out = '';
let err = '';
let exited: Promise<[number | null, NodeJS.Signals | null]>;
let printed: Printed;

/** Waits for `check` to give a value (not undefined), polling until the hang guard. */
async function waitFor<T>(
  what: () => string,
  check: () => T | undefined | Promise<T | undefined>,
  guardMs: number,
) {
  const deadline = Date.now() + guardMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    // A hang guard, not a timing assertion: on a busy machine it only has to end.
    if (Date.now() > deadline) throw new Error(`hang guard: ${what()}; demo stderr: ${err || '(none)'}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The value after `label: ` on its own line. */
function labelled(label: string): string {
  const value = new RegExp(`^${label}: (.+)$`, 'm').exec(out)?.[1];
  assert.ok(value, `a "${label}:" line in:\n${out}`);
  return value;
}

/** Reads the demo's printed lines into their parts. */
function parsePrinted(): Printed {
  const [email, password] = labelled('Sign in').split(' / ');
  const verdicts = out
    .split('\n')
    .filter((line) => /^ {2}\S+@\S+ {2}[A-Z_]+ {2}score \d+ {2}/.test(line))
    .map((line) => {
      const [address, status, , reason] = line.trim().split('  ');
      return { email: address!, status: status!, reason: reason!, line: line.trim() };
    });
  const exportLine = /^ {2}export (.+)$/m.exec(out)?.[1];
  const cliLine = /^ {2}\.\/bin\/mailvet (verify .+)$/m.exec(out)?.[1];
  const curl = /^ {2}(curl .+)$/m.exec(out)?.[1];
  assert.ok(exportLine && cliLine && curl, `export, mailvet and curl lines in:\n${out}`);
  return {
    url: labelled('Dashboard'),
    email: email!,
    password: password!,
    key: labelled('Key'),
    sampleList: labelled('Sample list'),
    dataDir: labelled('Data'),
    verdicts,
    curl,
    exports: Object.fromEntries(exportLine.split(' ').map((pair) => pair.split('=') as [string, string])),
    cli: cliLine.split(' '),
  };
}

before(async () => {
  demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  exited = once(demo, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  demo.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  demo.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  await waitFor(
    () => `the demo prints its banner; so far:\n${out}`,
    () => {
      if (demo.exitCode !== null) throw new Error(`the demo exited ${demo.exitCode}: ${err}`);
      return out.includes('Ctrl-C stops the demo') ? true : undefined;
    },
    180_000,
  );
  printed = parsePrinted();
});

after(async () => {
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const killer = setTimeout(() => demo.kill('SIGKILL'), 20_000);
    demo.kill('SIGTERM');
    await exited;
    clearTimeout(killer);
  }
});

/** A request to the demo's API; a 429 for the rate (the free plan's 5 a second) is waited out. */
async function api(
  method: string,
  path: string,
  init: { key?: string; session?: Session; json?: unknown; form?: FormData } = {},
): Promise<{ status: number; body: ApiJson; headers: Headers }> {
  for (;;) {
    const response = await fetch(`${printed.url}/api/v1${path}`, {
      method,
      headers: {
        ...(init.key !== undefined && { authorization: `Bearer ${init.key}` }),
        ...(init.session !== undefined && { cookie: init.session.cookie }),
        ...(init.session !== undefined &&
          method !== 'GET' && { 'x-csrf-token': init.session.csrf, origin: printed.url }),
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      ...(init.form !== undefined && { body: init.form }),
    });
    const text = await response.text();
    const body = text === '' ? null : JSON.parse(text);
    if (response.status === 429 && body?.code === 'rate_limited') {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
      continue;
    }
    return { status: response.status, body, headers: response.headers };
  }
}

interface Session {
  cookie: string;
  csrf: string;
}

/** The dashboard's "Validate now" with its defaults on an audience (a list), followed to its end. */
async function validateNow(session: Session, integration: string, audienceId: string): Promise<ApiJson> {
  const started = await api('POST', `/integrations/${integration}/runs`, {
    session,
    json: {
      audience_id: audienceId,
      statuses: ['subscribed'],
      scope: 'all',
      write_back: { fields: true, tags: true, segments: true, unsubscribe_invalid: false },
    },
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  let seen: ApiJson;
  const finished = await waitFor(
    () => `the run ends: ${JSON.stringify(seen)}`,
    async () => {
      seen = (await api('GET', `/integrations/${integration}/runs/${started.body.id}`, { session })).body;
      return ['completed', 'failed', 'cancelled'].includes(seen.state) ? seen : undefined;
    },
    120_000,
  );
  assert.equal(finished.state, 'completed', JSON.stringify(finished));
  return finished;
}

async function signIn(): Promise<Session> {
  const signedIn = await api('POST', '/session', {
    json: { email: printed.email, password: printed.password },
  });
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  const cookie = signedIn.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .find((pair) => pair.startsWith('mailvet_session='));
  assert.ok(cookie, 'the session cookie is set');
  return { cookie, csrf: signedIn.body.csrf_token };
}

test('npm run demo (README): prints a dashboard on loopback, sign-in, a key and a sample list', async () => {
  assert.match(printed.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(new URL(printed.url).port, '8080', '--port 0 takes a free port');
  assert.match(printed.key, /^mv_live_\S+$/);
  assert.equal(dirname(printed.sampleList), printed.dataDir, 'the sample list is in the data directory');
  assert.match(basename(printed.dataDir), /^mailvet-demo-/);
  assert.ok(existsSync(printed.sampleList));
  const dashboard = await fetch(printed.url);
  assert.equal(dashboard.status, 200);
  assert.match(dashboard.headers.get('content-type') ?? '', /^text\/html/);
  await signIn();
});

test('npm run demo (README): every printed verdict is what the API answers with the printed key', async () => {
  assert.deepEqual(
    printed.verdicts.map((verdict) => verdict.email),
    DEMO_ADDRESSES.map((address) => address.email),
    `a verdict for each address to try:\n${out}`,
  );
  for (const verdict of printed.verdicts) {
    const { status, body } = await api('POST', '/verify', {
      key: printed.key,
      json: { email: verdict.email },
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(
      { email: verdict.email, status: body.status, reason: body.reason },
      { email: verdict.email, status: verdict.status, reason: verdict.reason },
      verdict.line,
    );
    const suggested = / {2}did you mean (\S+)\?$/.exec(verdict.line)?.[1];
    assert.deepEqual(body.checks.suggestions, suggested === undefined ? [] : [suggested], verdict.line);
  }
  // The world shows every kind of answer, each computed by the server, none written in the demo.
  const shown = (status: string, reason?: string) =>
    printed.verdicts.some(
      (verdict) => verdict.status === status && (reason === undefined || verdict.reason === reason),
    );
  assert.ok(shown('VALID', 'mailbox_confirmed'), 'a confirmed mailbox');
  assert.ok(shown('INVALID', 'mailbox_rejected'), 'a rejected mailbox');
  assert.ok(shown('PROBABLY_VALID', 'catch_all'), 'a catch-all domain');
  assert.ok(
    printed.verdicts.some((verdict) => verdict.reason === 'greylisted'),
    'a greylisted one',
  );
  assert.ok(shown('DISPOSABLE'), 'a disposable provider');
  assert.ok(shown('INVALID_DOMAIN'), 'a domain that does not exist');
  assert.ok(
    printed.verdicts.some((verdict) => verdict.line.includes('did you mean')),
    'a typo with its suggestion',
  );
});

test('npm run demo (README): the printed sample list uploads and completes, with the printed verdicts', async () => {
  const csv = await readFile(printed.sampleList, 'utf8');
  const rows = csv.trim().split('\n').slice(1);
  const form = new FormData();
  form.append('name', 'sample list');
  form.append('file', new Blob([csv], { type: 'text/csv' }), basename(printed.sampleList));
  const created = await api('POST', '/lists', { key: printed.key, form });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  let seen: ApiJson;
  const list = await waitFor(
    () => `the list completes: ${JSON.stringify(seen)}`,
    async () => {
      seen = (await api('GET', `/lists/${created.body.id}`, { key: printed.key })).body;
      return ['completed', 'failed', 'cancelled'].includes(seen.state) ? seen : undefined;
    },
    120_000,
  );
  assert.equal(list.state, 'completed', JSON.stringify(list));
  assert.equal(list.counts.total, rows.length);
  assert.equal(list.counts.processed, rows.length);

  const results = await api('GET', `/lists/${created.body.id}/results?format=json`, { key: printed.key });
  assert.equal(results.status, 200);
  const byEmail = new Map(printed.verdicts.map((verdict) => [verdict.email, verdict]));
  for (const row of results.body as Array<{ email: string; result: ApiJson }>) {
    const verdict = byEmail.get(row.email);
    assert.ok(verdict, `${row.email} of the sample list is among the addresses to try`);
    assert.deepEqual([row.result.status, row.result.reason], [verdict.status, verdict.reason], verdict.line);
  }
});

test('npm run demo (README): the Mailchimp stand-in is connected, and Validate now completes', async () => {
  const session = await signIn();
  const { status, body } = await api('GET', '/integrations', { session });
  assert.equal(status, 200);
  const connected = (body.integrations as ApiJson[]).filter(
    (integration) => integration.provider === 'mailchimp',
  );
  assert.deepEqual(
    connected.map(({ account_name, state }) => ({ account_name, state })),
    [{ account_name: 'Demo Shop', state: 'connected' }],
  );
  const integration = connected[0].id as string;
  const audiences = await api('GET', `/integrations/${integration}/audiences`, { session });
  assert.equal(audiences.status, 200, JSON.stringify(audiences.body));
  const newsletter = (audiences.body.audiences as ApiJson[]).find(
    (audience) => audience.name === 'Newsletter',
  );
  assert.ok(newsletter, JSON.stringify(audiences.body));

  // The dashboard's "Validate now": its contacts live in the demo's world, so the run ends (no
  // address waits minutes for a re-check) and every subscribed member is written back.
  const finished = await validateNow(session, integration, newsletter.id);
  const printedCount = Number(/\((\d+) contacts\)/.exec(labelled('Mailchimp'))?.[1]);
  assert.equal(finished.counts.members, printedCount, 'as many members as the demo says');
  assert.equal(finished.counts.written, printedCount);
});

test('npm run demo (README): the HubSpot stand-in is connected, and a run writes every contact its verdict', async () => {
  const session = await signIn();
  const { body } = await api('GET', '/integrations', { session });
  const connected = (body.integrations as ApiJson[]).filter(
    (integration) => integration.provider === 'hubspot',
  );
  const printedLine = labelled('HubSpot');
  const printedName = /connected to "([^"]+)"/.exec(printedLine)?.[1];
  assert.deepEqual(
    connected.map(({ account_name, state }) => ({ account_name, state })),
    [{ account_name: printedName, state: 'connected' }],
    printedLine,
  );
  const integration = connected[0].id as string;
  const audiences = await api('GET', `/integrations/${integration}/audiences`, { session });
  assert.equal(audiences.status, 200, JSON.stringify(audiences.body));
  const byName = new Map(
    (audiences.body.audiences as ApiJson[]).map((audience) => [audience.name, audience]),
  );
  const [, listName, listContacts, allContacts, optedOut] =
    /"([^"]+)" list \((\d+) contacts\) or on All contacts \((\d+) contacts, (\d+) opted out/.exec(
      printedLine,
    ) ?? [];
  assert.equal(byName.get(listName)?.member_count, Number(listContacts), 'the printed list and its size');
  assert.equal(byName.get('All contacts')?.id, 'all');

  // "Validate now" on All contacts: opted-out contacts are left alone, the others written back.
  const finished = await validateNow(session, integration, 'all');
  const subscribed = Number(allContacts) - Number(optedOut);
  assert.equal(finished.counts.members, subscribed);
  assert.equal(finished.counts.written, subscribed);

  // What HubSpot now holds, read from the stand-in with the printed token as a newcomer would.
  const [, standIn, token] =
    /^(\S+) with the private app token (\S+) /.exec(labelled('HubSpot stand-in')) ?? [];
  const properties = 'email,hs_email_optout,mailvet_status,mailvet_score,mailvet_category,mailvet_checked';
  const read = await fetch(`${standIn}/crm/v3/objects/contacts?limit=100&properties=${properties}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(read.status, 200);
  const contacts = ((await read.json()) as ApiJson).results.map((contact: ApiJson) => contact.properties);
  assert.equal(contacts.length, Number(allContacts));
  const category = (status: string) =>
    status === 'VALID'
      ? 'valid'
      : ['PROBABLY_VALID', 'ROLE_BASED', 'DISPOSABLE'].includes(status)
        ? 'risky'
        : 'invalid';
  const statuses = new Set<string>();
  for (const contact of contacts) {
    if (contact.hs_email_optout === 'true') {
      assert.equal(contact.mailvet_status, null, `${contact.email} is opted out: nothing written`);
      continue;
    }
    const verified = await api('POST', '/verify', { key: printed.key, json: { email: contact.email } });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepEqual(
      {
        email: contact.email,
        status: contact.mailvet_status,
        score: Number(contact.mailvet_score),
        category: contact.mailvet_category,
      },
      {
        email: contact.email,
        status: verified.body.status,
        score: verified.body.score,
        category: category(verified.body.status),
      },
    );
    // A date property, read back as HubSpot gives one: the day it was verified (today, or yesterday past midnight).
    assert.match(contact.mailvet_checked, /^\d{4}-\d{2}-\d{2}$/, contact.email);
    const age = Date.now() - Date.parse(`${contact.mailvet_checked}T00:00:00Z`);
    assert.ok(age >= 0 && age < 2 * 86_400_000, `${contact.email}: ${contact.mailvet_checked}`);
    statuses.add(contact.mailvet_status);
  }
  for (const status of [
    'VALID',
    'INVALID',
    'PROBABLY_VALID',
    'DISPOSABLE',
    'ROLE_BASED',
    'INVALID_DOMAIN',
    'NO_MX_RECORDS',
  ])
    assert.ok(statuses.has(status), `a contact written ${status}: ${[...statuses].join(', ')}`);
});

test('npm run demo (README): the printed curl and mailvet verify lines work as pasted', async () => {
  // The tests before asked many verifications with the printed key: the pasted line is asked with
  // the account's rate-limit bucket full again, as a person pasting it a moment later would.
  const usage = await api('GET', '/usage', { key: printed.key });
  assert.equal(usage.status, 200);
  await new Promise((resolve) =>
    setTimeout(resolve, Number(usage.headers.get('ratelimit-reset') ?? 0) * 1000),
  );
  const { stdout: curled } = await run('sh', ['-c', printed.curl], { timeout: 60_000 });
  const result = JSON.parse(curled);
  const expected = printed.verdicts.find((verdict) => verdict.email === result.email);
  assert.equal(result.status, 'VALID', curled);
  assert.equal(expected?.status, 'VALID');

  // The command line, in the demo's world through the printed variables alone.
  const { stdout } = await run(process.execPath, ['bin/mailvet', ...printed.cli], {
    cwd: ROOT,
    env: { ...process.env, ...printed.exports },
    timeout: 120_000,
  });
  const lines = stdout.trim().split('\n');
  assert.deepEqual(
    lines.map((line) => line.split('  ')[0]),
    printed.cli.slice(1),
    'a line per address, in order',
  );
  for (const line of lines) {
    const [email, status, , reason] = line.split('  ');
    const verdict = printed.verdicts.find((each) => each.email === email);
    assert.ok(verdict, `${email} is among the addresses to try`);
    assert.deepEqual([status, reason], [verdict.status, verdict.reason], `${line}\nserver: ${verdict.line}`);
  }
});

test('npm run demo (README): Ctrl-C stops everything and removes the temporary directory', async () => {
  // A hang guard: a demo that ignores Ctrl-C is killed, and the exit code says so.
  const killer = setTimeout(() => demo.kill('SIGKILL'), 30_000);
  demo.kill('SIGINT');
  const [code, signal] = await exited;
  clearTimeout(killer);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, err);
  assert.equal(existsSync(printed.dataDir), false, `${printed.dataDir} removed`);
  await assert.rejects(fetch(printed.url), 'the server stopped with the demo');
});

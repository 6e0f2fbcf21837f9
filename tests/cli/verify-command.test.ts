import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { VerificationResult } from '../../src/verification/report.ts';
import { type DnsWorld, startDnsWorld } from '../mailworld/dns-server.ts';

const BIN = fileURLToPath(new URL('../../bin/mailvet', import.meta.url));

let world: DnsWorld;
let scratch: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function mailvet(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          ...process.env,
          MAILVET_DNS_SERVERS: world.servers,
          MAILVET_DNS_TIMEOUT_MS: '300',
          MAILVET_SMTP_PROBE: 'false',
          ...env,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

before(async () => {
  world = await startDnsWorld();
  scratch = await mkdtemp(join(tmpdir(), 'mailvet-cli-'));
});
after(async () => {
  await world.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('mailvet verify ADDRESS', () => {
  it('--json with one address prints one result object in the API shape', async () => {
    const run = await mailvet(['verify', 'Info@Multi-MX.test', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as VerificationResult;
    assert.equal(result.email, 'Info@Multi-MX.test');
    assert.equal(result.status, 'ROLE_BASED');
    assert.equal(result.checks.mx_records, true);
    assert.equal(result.checks.smtp, 'skipped');
  });

  it('--json with several addresses prints an array in the given order', async () => {
    const run = await mailvet([
      'verify',
      'jane@nxdomain.test',
      'not-an-address',
      'jane@nullmx.test',
      '--json',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as VerificationResult[];
    assert.deepEqual(
      results.map((r) => [r.email, r.status]),
      [
        ['jane@nxdomain.test', 'INVALID_DOMAIN'],
        ['not-an-address', 'INVALID_SYNTAX'],
        ['jane@nullmx.test', 'NO_MX_RECORDS'],
      ],
    );
  });

  it('prints one readable line per address without --json', async () => {
    const run = await mailvet(['verify', 'jane@multi-mx.test', 'bad@@x']);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^jane@multi-mx\.test\s+PROBABLY_VALID\s+score 75\s+probe_skipped/);
    assert.match(lines[1]!, /^bad@@x\s+INVALID_SYNTAX\s+score 0/);
  });

  it('answers hostile input without crashing', async () => {
    const run = await mailvet([
      'verify',
      '\uD800@example.test',
      '\u0001@x.test',
      `${'a'.repeat(100_000)}@x.test`,
      '--json',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as VerificationResult[];
    assert.equal(results.length, 3);
    for (const result of results) assert.equal(result.status, 'INVALID_SYNTAX');
  });

  it('usage mistakes exit 2 with a message', async () => {
    const none = await mailvet(['verify']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give one or more addresses/);
    const both = await mailvet(['verify', 'a@b.test', '--file', 'x.csv']);
    assert.equal(both.code, 2);
    const concurrency = await mailvet(['verify', 'a@b.test', '--concurrency', 'lots']);
    assert.equal(concurrency.code, 2);
    assert.match(concurrency.stderr, /--concurrency/);
  });

  it('reads the operator deny and allow files named in the environment', async () => {
    const deny = join(scratch, 'deny.txt');
    const allow = join(scratch, 'allow.txt');
    await writeFile(deny, '# our own list\nmulti-mx.test\n');
    await writeFile(allow, 'mailinator.com\n');
    const env = { MAILVET_DISPOSABLE_DENY_FILE: deny, MAILVET_DISPOSABLE_ALLOW_FILE: allow };
    const run = await mailvet(['verify', 'jane@multi-mx.test', 'jane@mailinator.com', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    const [denied, allowed] = JSON.parse(run.stdout) as VerificationResult[];
    assert.equal(denied?.status, 'DISPOSABLE');
    assert.equal(allowed?.checks.disposable, false);
    const missing = await mailvet(['verify', 'a@b.test'], {
      MAILVET_DISPOSABLE_DENY_FILE: join(scratch, 'nope.txt'),
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /nope\.txt/);
  });

  it('a bad configuration value stops with the variable named', async () => {
    const run = await mailvet(['verify', 'a@b.test'], { MAILVET_DNS_TIMEOUT_MS: 'soon' });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /MAILVET_DNS_TIMEOUT_MS/);
  });
});

describe('mailvet verify --file', () => {
  it('keeps every column and the row order, and appends the results (BOM, quotes, CRLF, blank lines)', async () => {
    const input = join(scratch, 'contacts.csv');
    const output = join(scratch, 'checked.csv');
    const csv = [
      '\uFEFFname,Email,note',
      '"Doe, Jane",jane@multi-mx.test,"said ""hi"""',
      '',
      'Info desk,info@multi-mx.test,',
      'Nobody,nobody@nxdomain.test,x',
      'Broken,not-an-address,',
      'Short',
    ].join('\r\n');
    await writeFile(input, csv);
    const run = await mailvet(['verify', '--file', input, '--out', output]);
    assert.equal(run.code, 0, run.stderr);
    const rows = parse(await readFile(output, 'utf8'), { relax_column_count: true }) as string[][];
    assert.deepEqual(rows[0]!.slice(0, 5), ['name', 'Email', 'note', 'mailvet_status', 'mailvet_score']);
    const byName = rows.slice(1).map((row) => [row[0], row[1], row[2], row[3]]);
    assert.deepEqual(byName, [
      ['Doe, Jane', 'jane@multi-mx.test', 'said "hi"', 'PROBABLY_VALID'],
      ['Info desk', 'info@multi-mx.test', '', 'ROLE_BASED'],
      ['Nobody', 'nobody@nxdomain.test', 'x', 'INVALID_DOMAIN'],
      ['Broken', 'not-an-address', '', 'INVALID_SYNTAX'],
      ['Short', '', '', 'INVALID_SYNTAX'],
    ]);
  });

  it('reads a quote inside an unquoted cell as a character, as spreadsheets do; an unclosed one is one line', async () => {
    const input = join(scratch, 'export.csv');
    const output = join(scratch, 'export-checked.csv');
    await writeFile(input, 'email,name\nfoo"bar@multi-mx.test,Foo\n=HYPERLINK("x")@gmial.com,Bar "B" Baz\n');
    const run = await mailvet(['verify', '--file', input, '--out', output]);
    assert.equal(run.code, 0, run.stderr);
    const rows = parse(await readFile(output, 'utf8'), { relax_column_count: true }) as string[][];
    assert.deepEqual(
      rows.slice(1).map((row) => [row[0], row[1]]),
      [
        ['foo"bar@multi-mx.test', 'Foo'],
        ['=HYPERLINK("x")@gmial.com', 'Bar "B" Baz'],
      ],
    );
    const unclosed = join(scratch, 'unclosed.csv');
    await writeFile(unclosed, 'email\nalice@multi-mx.test\n"secret@multi-mx.test,1\n');
    const broken = await mailvet(['verify', '--file', unclosed, '--out', join(scratch, 'unclosed-out.csv')]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /^mailvet: cannot read .*unclosed\.csv as CSV: .*line 3\n$/);
    assert.doesNotMatch(broken.stderr, /\n\s+at /, 'no stack trace');
  });

  it('reads a file without a header from its first column holding an @', async () => {
    const input = join(scratch, 'plain.csv');
    const lines = Array.from({ length: 2000 }, (_, i) => `${i},user${i}@multi-mx.test`);
    await writeFile(input, `${lines.join('\n')}\n`);
    const run = await mailvet(['verify', '--file', input, '--concurrency', '50']);
    assert.equal(run.code, 0, run.stderr);
    const rows = parse(run.stdout) as string[][];
    assert.equal(rows.length, 2001);
    assert.deepEqual(rows[0]!.slice(0, 3), ['column_1', 'email', 'mailvet_status']);
    // Order is kept even with 50 verifications in flight.
    for (let i = 0; i < 2000; i++) assert.equal(rows[i + 1]![0], String(i));
  });

  it('names a missing column clearly', async () => {
    const input = join(scratch, 'named.csv');
    await writeFile(input, 'name,address\nJane,jane@multi-mx.test\n');
    const missing = await mailvet(['verify', '--file', input, '--column', 'mail_to']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no column named "mail_to"/);
    const named = await mailvet(['verify', '--file', input, '--column', 'address']);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /jane@multi-mx\.test,PROBABLY_VALID,75,probe_skipped/);
  });
});

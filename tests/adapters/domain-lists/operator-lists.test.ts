import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseDomainList, readOperatorLists } from '../../../src/adapters/domain-lists/operator-lists.ts';
import { createListChecker } from '../../../src/verification/checks/domain-lists.ts';

let dir = '';

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailvet-operator-lists-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text, 'utf8');
  return path;
}

describe('parseDomainList', () => {
  it('reads one domain per line, skipping comments and blank lines', () => {
    const text = [
      '# our QA inboxes',
      'qa-inbox.example',
      '',
      '   ',
      'Partner.Example   # a partner that looks like a burner',
      '*.wild.example',
      '.dotted.example',
      'rooted.example.',
      'bücher.de',
    ].join('\n');
    assert.deepEqual(parseDomainList(text, 'allow.txt'), {
      domains: [
        'qa-inbox.example',
        'partner.example',
        'wild.example',
        'dotted.example',
        'rooted.example',
        'xn--bcher-kva.de',
      ],
      warnings: [],
    });
  });

  it('handles CRLF line ends and a byte-order mark', () => {
    assert.deepEqual(parseDomainList('\uFEFFone.example\r\ntwo.example\r\n', 'f').domains, [
      'one.example',
      'two.example',
    ]);
  });

  it('reports malformed lines with their line numbers and keeps the good ones', () => {
    const text = [
      'good.example',
      'not a domain',
      'user@mail.example',
      'https://site.example/',
      '-leading-hyphen.example',
      'empty..label.example',
      'per%63ent.example',
      `${'a'.repeat(64)}.example`,
      '*.',
      'also-good.example',
    ].join('\n');
    const { domains, warnings } = parseDomainList(text, 'deny.txt');
    assert.deepEqual(domains, ['good.example', 'also-good.example']);
    assert.deepEqual(
      warnings.map((w) => [w.line, w.problem, w.file]),
      [2, 3, 4, 5, 6, 7, 8, 9].map((line) => [line, 'invalid_domain', 'deny.txt']),
    );
    assert.match(warnings[0]?.message ?? '', /not a domain/);
  });

  it('never throws on hostile text', () => {
    const hostile = ['\ud800.example', '\u0000', 'x'.repeat(1_000_000), '#'.repeat(1000), '\r\r\n\n'].join(
      '\n',
    );
    const { domains, warnings } = parseDomainList(hostile, 'f');
    assert.deepEqual(domains, []);
    assert.equal(warnings.length, 3);
    assert.ok(
      warnings.every((w) => w.message.length < 200),
      'a warning echoes the whole line',
    );
  });
});

describe('readOperatorLists', () => {
  it('reads both files from disk', async () => {
    const allowFile = await file('allow.txt', '# allowed\nqa-inbox.example\n');
    const denyFile = await file('deny.txt', 'burner.example\nbad line\n');
    const lists = await readOperatorLists({ allowFile, denyFile });
    assert.deepEqual(lists.allowDomains, ['qa-inbox.example']);
    assert.deepEqual(lists.denyDomains, ['burner.example']);
    assert.deepEqual(
      lists.warnings.map((w) => [w.file, w.line, w.problem]),
      [[denyFile, 2, 'invalid_domain']],
    );
  });

  it('gives empty lists without files', async () => {
    assert.deepEqual(await readOperatorLists({}), { allowDomains: [], denyDomains: [], warnings: [] });
    assert.deepEqual(await readOperatorLists({ allowFile: '', denyFile: undefined }), {
      allowDomains: [],
      denyDomains: [],
      warnings: [],
    });
  });

  it('reports a missing or unreadable file as a warning, not an exception', async () => {
    const missing = join(dir, 'does-not-exist.txt');
    const denyFile = await file('deny-ok.txt', 'burner.example\n');
    const lists = await readOperatorLists({ allowFile: missing, denyFile });
    assert.deepEqual(lists.allowDomains, []);
    assert.deepEqual(lists.denyDomains, ['burner.example']);
    assert.equal(lists.warnings.length, 1);
    assert.deepEqual([lists.warnings[0]?.file, lists.warnings[0]?.line], [missing, null]);
    assert.equal(lists.warnings[0]?.problem, 'unreadable');
    assert.match(lists.warnings[0]?.message ?? '', /ENOENT/);

    const directory = await readOperatorLists({ denyFile: dir });
    assert.equal(directory.warnings[0]?.problem, 'unreadable');
  });

  it('feeds the list checker', async () => {
    const allowFile = await file('allow-mailinator.txt', 'mailinator.com\n');
    const denyFile = await file('deny-burner.txt', '*.burner.example\n');
    const checker = createListChecker(await readOperatorLists({ allowFile, denyFile }));
    assert.equal(checker.check('x', 'mailinator.com').disposable, false);
    assert.equal(checker.check('x', 'eu.burner.example').disposableSource, 'operator_deny');
    assert.equal(checker.check('x', 'yopmail.com').disposableSource, 'list');
  });
});

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  type ExportRow,
  RESULT_COLUMNS,
  resultCells,
  resultRowCells,
  resultsCsv,
  resultsJson,
} from '../../src/lists/results-format.ts';
import { noEvidence } from '../../src/verification/evidence.ts';
import type { VerificationResult } from '../../src/verification/report.ts';

function result(email: string, overrides: Partial<VerificationResult> = {}): VerificationResult {
  return {
    email,
    checks: {
      syntax: true,
      domain_exists: true,
      mx_records: true,
      mailbox_exists: true,
      disposable: false,
      role_based: false,
      suggestions: [],
      free_provider: false,
      catch_all: null,
      smtp: 'deliverable',
      catch_all_confidence: null,
    },
    score: 97,
    status: 'VALID',
    reason: 'mailbox_confirmed',
    duration_ms: 12,
    evidence: noEvidence(),
    ...overrides,
  };
}

async function* rowsOf(rows: ExportRow[]): AsyncGenerator<ExportRow> {
  yield* rows;
}

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts).toString('utf8');
}

describe('resultCells', () => {
  it('gives one cell per result column, empty ones when there is no result yet', () => {
    const typo = result('jane@gmial.com', {
      checks: { ...result('x').checks, suggestions: ['jane@gmail.com'], catch_all: false },
    });
    const cells = resultCells(typo);
    assert.equal(cells.length, RESULT_COLUMNS.length);
    assert.deepEqual(cells, [
      'VALID',
      '97',
      'mailbox_confirmed',
      'jane@gmail.com',
      'false',
      'false',
      'false',
      'true',
      'deliverable',
      'false',
    ]);
    assert.deepEqual(
      resultCells(null),
      RESULT_COLUMNS.map(() => ''),
    );
  });

  it('lines rows up under the header: pads short ones, keeps extra cells after the results', () => {
    assert.deepEqual(resultRowCells(['a'], 2, null).slice(0, 3), ['a', '', '']);
    const long = resultRowCells(['a', 'b', 'c'], 2, null);
    assert.equal(long.length, 2 + RESULT_COLUMNS.length + 1);
    assert.equal(long.at(-1), 'c');
  });
});

describe('resultsCsv', () => {
  it('writes the original columns, then the results, quoting what needs it, in row order', async () => {
    const rows: ExportRow[] = [
      {
        rowNumber: 1,
        email: 'jane@x.de',
        fields: ['Doe, "Jane"', 'jane@x.de', 'line\nbreak'],
        result: result('jane@x.de'),
      },
      { rowNumber: 2, email: 'bob@x.de', fields: ['Bob', 'bob@x.de'], result: null },
      {
        rowNumber: 3,
        email: '=cmd@x.de',
        fields: ['=SUM(A1)', '=cmd@x.de', '', 'extra'],
        result: result('=cmd@x.de', { status: 'INVALID_SYNTAX', score: 0, reason: 'syntax_invalid' }),
      },
    ];
    const csv = await text(resultsCsv(['name', 'email', 'note'], rowsOf(rows)));
    const records = parse(csv, { relax_column_count: true }) as string[][];
    assert.deepEqual(records[0], ['name', 'email', 'note', ...RESULT_COLUMNS]);
    assert.deepEqual(records[1]!.slice(0, 5), ['Doe, "Jane"', 'jane@x.de', 'line\nbreak', 'VALID', '97']);
    assert.deepEqual(records[2], ['Bob', 'bob@x.de', '', ...RESULT_COLUMNS.map(() => '')]);
    // Formula-like cells are defused with a leading quote.
    assert.deepEqual(records[3]!.slice(0, 4), ["'=SUM(A1)", "'=cmd@x.de", '', 'INVALID_SYNTAX']);
    assert.equal(records[3]!.at(-1), 'extra');
    assert.equal(records.length, 4);
    // raw: exactly as uploaded.
    const raw = parse(await text(resultsCsv(['name', 'email', 'note'], rowsOf(rows), { raw: true })), {
      relax_column_count: true,
    }) as string[][];
    assert.deepEqual(raw[3]!.slice(0, 2), ['=SUM(A1)', '=cmd@x.de']);
  });

  it('prefixes every cell a spreadsheet would run as a formula, suggestions and headers too', async () => {
    const suggested = result('=1+2@gmial.com', {
      checks: { ...result('x').checks, suggestions: ['=1+2@gmail.com'] },
    });
    const fields = [
      '=A1',
      '+A1',
      '-A1',
      '@A1',
      '\tA1',
      '\rA1',
      'plain',
      'mid=dle',
      ' =spaced',
      '=1+2@gmial.com',
    ];
    const rows: ExportRow[] = [{ rowNumber: 1, email: '=1+2@gmial.com', fields, result: suggested }];
    const header = ['=h', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'email'];
    const records = parse(await text(resultsCsv(header, rowsOf(rows))), {
      relax_column_count: true,
    }) as string[][];
    assert.equal(records[0]![0], "'=h");
    assert.deepEqual(records[1]!.slice(0, 10), [
      "'=A1",
      "'+A1",
      "'-A1",
      "'@A1",
      "'\tA1",
      "'\rA1",
      'plain',
      'mid=dle',
      ' =spaced',
      "'=1+2@gmial.com",
    ]);
    const suggestion = records[1]![10 + RESULT_COLUMNS.indexOf('mailvet_suggestion')];
    assert.equal(suggestion, "'=1+2@gmail.com");
  });

  it('exports a JSON upload (no cells) under an email column, with an optional BOM', async () => {
    const rows: ExportRow[] = [{ rowNumber: 1, email: 'a@x.de', fields: null, result: result('a@x.de') }];
    const csv = await text(resultsCsv(null, rowsOf(rows), { bom: true }));
    assert.ok(csv.startsWith('\uFEFFemail,mailvet_status,'));
    assert.deepEqual((parse(csv, { bom: true }) as string[][])[1]!.slice(0, 3), ['a@x.de', 'VALID', '97']);
  });

  it('streams many rows, and fails the stream when the rows fail', async () => {
    async function* many(): AsyncGenerator<ExportRow> {
      for (let i = 1; i <= 10_000; i += 1)
        yield { rowNumber: i, email: `u${i}@x`, fields: [`u${i}@x`], result: null };
    }
    const records = parse(await text(resultsCsv(['email'], many()))) as string[][];
    assert.equal(records.length, 10_001);
    assert.equal(records[10_000]![0], 'u10000@x');
    async function* failing(): AsyncGenerator<ExportRow> {
      yield { rowNumber: 1, email: 'a@x', fields: ['a@x'], result: null };
      throw new Error('store went away');
    }
    await assert.rejects(() => text(resultsCsv(['email'], failing())), /store went away/);
  });
});

describe('resultsJson', () => {
  it('writes one object per row, in order', async () => {
    const rows: ExportRow[] = [
      { rowNumber: 1, email: 'a@x.de', fields: ['a@x.de'], result: result('a@x.de') },
      { rowNumber: 2, email: 'a@x.de', fields: ['a@x.de'], result: result('a@x.de') },
      { rowNumber: 3, email: 'b\u2028@x.de', fields: null, result: null },
    ];
    const parsed = JSON.parse(await text(resultsJson(rowsOf(rows))));
    assert.deepEqual(parsed, [
      { row: 1, email: 'a@x.de', result: result('a@x.de') },
      { row: 2, email: 'a@x.de', result: result('a@x.de') },
      { row: 3, email: 'b\u2028@x.de', result: null },
    ]);
    assert.deepEqual(JSON.parse(await text(resultsJson(rowsOf([])))), []);
  });

  it('sends elements before the rows end', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow(): AsyncGenerator<ExportRow> {
      for (let i = 1; i <= 600; i += 1) yield { rowNumber: i, email: `u${i}@x`, fields: null, result: null };
      await gate;
      yield { rowNumber: 601, email: 'last@x', fields: null, result: null };
    }
    const stream = resultsJson(slow());
    const iterator = stream[Symbol.asyncIterator]();
    const first = String((await iterator.next()).value);
    assert.ok(first.startsWith('[\n{"row":1,"email":"u1@x","result":null}'), first.slice(0, 60));
    release();
    let rest = first;
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      rest += String(next.value);
    const parsed = JSON.parse(rest) as Array<{ row: number }>;
    assert.equal(parsed.length, 601);
    assert.equal(parsed.at(-1)!.row, 601);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_JSON_DEPTH, readJsonUpload } from '../../../src/lists/upload/json-rows.ts';
import { UploadError } from '../../../src/lists/upload/upload-error.ts';
import type { ByteSource } from '../../../src/lists/upload/utf8.ts';
import { byteByByte, chunks, collect, heldOpen } from './sources.ts';

type Expected = { code?: string; field?: string | null; message?: string | RegExp };
async function read(source: ByteSource | string, maxRows = 1000) {
  const upload = readJsonUpload(typeof source === 'string' ? chunks(source) : source, { maxRows });
  const emails = await collect(upload.emails);
  return { emails, ...upload.fields() };
}

async function rejects(source: ByteSource | string, expected: Expected, maxRows = 1000) {
  await assert.rejects(
    () => read(source, maxRows),
    (error: unknown) => {
      assert.ok(error instanceof UploadError, String(error));
      for (const [key, value] of Object.entries(expected)) {
        const actual: unknown = error[key as keyof Expected];
        if (value instanceof RegExp) assert.match(String(actual), value);
        else assert.equal(actual, value, `${key} (${error.message})`);
      }
      return true;
    },
  );
}

describe('readJsonUpload: fields', () => {
  it('reads name and webhook_url before or after emails', async () => {
    const before = await read(
      '{"name":" Q3 leads ","webhook_url":"https://hooks.example/x","emails":["a@x.de","b@x.de"]}',
    );
    assert.deepEqual(before, {
      emails: ['a@x.de', 'b@x.de'],
      name: 'Q3 leads',
      webhookUrl: 'https://hooks.example/x',
      count: 2,
    });
    const after = await read('{"emails":["a@x.de"],"webhook_url":"http://h.example/","name":"Later"}');
    assert.deepEqual(after, { emails: ['a@x.de'], name: 'Later', webhookUrl: 'http://h.example/', count: 1 });
  });

  it('leaves name and webhook_url undefined when absent or null; ignores unknown keys', async () => {
    const body =
      '{"x":{"deep":[1,[2,{"y":null}]],"s":"t"},"emails":[" a@x.de "],"name":null,"webhook_url":null,"z":true}';
    assert.deepEqual(await read(body), {
      emails: [' a@x.de '],
      name: undefined,
      webhookUrl: undefined,
      count: 1,
    });
  });

  it('rejects a bad name or webhook_url under its field', async () => {
    for (const name of ['5', '""', '"   "', JSON.stringify('n'.repeat(201)), '["a"]', '{}', '"\\ud800"']) {
      await rejects(`{"emails":["a@x"],"name":${name}}`, { code: 'validation_failed', field: 'name' });
    }
    assert.equal(
      (await read(`{"emails":["a@x"],"name":${JSON.stringify('😀'.repeat(200))}}`)).name?.length,
      400,
    );
    for (const url of [
      '"ftp://x.example/"',
      '"not a url"',
      '1',
      JSON.stringify(`https://x.example/${'p'.repeat(2048)}`),
    ]) {
      await rejects(`{"webhook_url":${url},"emails":["a@x"]}`, { field: 'webhook_url' });
    }
  });

  it('refuses the fields before the body is read', () => {
    const upload = readJsonUpload(chunks('{"emails":["a@x"]}'), { maxRows: 10 });
    assert.throws(() => upload.fields(), /read `emails` to its end/);
  });
});

describe('readJsonUpload: emails', () => {
  it('rejects a missing, wrong-typed, empty, repeated or over-long emails', async () => {
    await rejects('{"name":"n"}', { code: 'validation_failed', field: 'emails', message: 'Required' });
    for (const value of ['"a@x"', '{}', '{"0":"a@x"}', 'null', '3', '[]']) {
      await rejects(`{"emails":${value}}`, {
        code: 'validation_failed',
        field: 'emails',
        message: /array of 1 to 1000/,
      });
    }
    await rejects('{"emails":["a@x"],"emails":["b@x"]}', { field: 'emails', message: /more than once/ });
    await rejects('{"emails":["a@x","b@x","c@x","d@x"]}', { field: 'emails', message: /at most 3/ }, 3);
    assert.equal((await read('{"emails":["a@x","b@x","c@x"]}', 3)).count, 3);
  });

  it('names the bad entry', async () => {
    const bad = [
      '1',
      'null',
      'true',
      '""',
      '"  \\t"',
      '["a@x"]',
      '{"e":"a@x"}',
      JSON.stringify(`${'a'.repeat(1022)}@xy`),
    ];
    for (const entry of bad) {
      await rejects(`{"emails":["a@x","b@x","c@x",${entry}]}`, {
        code: 'validation_failed',
        field: 'emails[3]',
        message: 'Invalid email format',
      });
    }
    // 1024 characters is the limit in code points, not UTF-16 units.
    const long = `${'😀'.repeat(1020)}@x.d`;
    assert.deepEqual((await read(`{"emails":[${JSON.stringify(long)}]}`)).emails, [long]);
  });

  it('rejects lone surrogates, keeps escaped pairs', async () => {
    await rejects('{"emails":["a\\ud800@x.de"]}', { field: 'emails[0]', message: 'Invalid email format' });
    await rejects('{"emails":["ok@x","\\udc00@x.de"]}', { field: 'emails[1]' });
    await rejects('{"emails":["\\ud800"]}', { field: 'emails[0]' });
    assert.deepEqual((await read('{"emails":["\\ud83d\\ude00@x.de"],"junk":"\\ud800"}')).emails, ['😀@x.de']);
  });
});

describe('readJsonUpload: bad bodies', () => {
  it('rejects a body that is not one JSON object', async () => {
    for (const body of ['', '   ', '[]', '["a@x"]', '"x"', '42', 'null']) {
      await rejects(body, { code: 'bad_request', field: null });
    }
    for (const body of [
      '{"emails":["a@x"]',
      '{"emails":["a@x",]}',
      '{"emails":["a@x"]} {}',
      '{emails:[]}',
      "{'emails':[]}",
    ]) {
      await rejects(body, { code: 'bad_request', field: null, message: /not valid JSON/ });
    }
  });

  it('rejects deep nesting without blowing the stack', async () => {
    const deep = '['.repeat(100_000);
    await rejects(deep, { code: 'bad_request', message: /must be a JSON object/ });
    await rejects(`{"x":${deep}`, {
      code: 'bad_request',
      message: new RegExp(`more than ${MAX_JSON_DEPTH} levels`),
    });
    await rejects(`{"x":${'{"a":'.repeat(100_000)}`, { code: 'bad_request', message: /levels/ });
    await rejects(`{"emails":${deep}`, { field: 'emails[0]' });
    const ok = `{"x":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)},"emails":["a@x"]}`;
    assert.deepEqual((await read(ok)).emails, ['a@x']);
  });

  it('rejects invalid UTF-8 and a huge string in an ignored key', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"emails":["zo'),
      Buffer.from([0xeb]),
      Buffer.from('@x.de"]}'),
    ]);
    await rejects(chunks(bytes), { code: 'bad_request', message: /UTF-8/ });
    await rejects(chunks(Buffer.from('{"emails":["a@x"]}'), Buffer.from([0xf0, 0x9f])), { message: /UTF-8/ });
    const huge = Array.from({ length: 40 }, () => 'x'.repeat(32 * 1024));
    await rejects(chunks('{"junk":"', ...huge, '","emails":["a@x"]}'), {
      code: 'bad_request',
      message: /longer than/,
    });
  });

  it('reads a BOM and multi-byte characters fed one byte at a time', async () => {
    const body = '\uFEFF{ "name" : "Zoë 😀",\n "emails" : [ "zoë@bücher.de", "日本@例え.jp" ] }\n';
    assert.deepEqual(await read(byteByByte(body)), {
      emails: ['zoë@bücher.de', '日本@例え.jp'],
      name: 'Zoë 😀',
      webhookUrl: undefined,
      count: 2,
    });
  });
});

describe('readJsonUpload: streaming', () => {
  it('yields addresses before the body ends', async () => {
    const { state, source } = heldOpen('{"emails":["a@x.de","b@x.de"', ',"c@x.de"],"name":"late"}');
    const upload = readJsonUpload(source, { maxRows: 10 });
    assert.deepEqual(await upload.emails.next(), { done: false, value: 'a@x.de' });
    assert.equal(state.ended, false);
    state.release();
    assert.deepEqual(await collect(upload.emails), ['b@x.de', 'c@x.de']);
    assert.equal(upload.fields().name, 'late');
  });

  it('streams 100,000 addresses in order without building the array', async () => {
    const total = 100_000;
    let produced = 0;
    async function* body(): AsyncGenerator<string> {
      yield '{"emails":[';
      for (let i = 0; i < total; i += 1000) {
        const part = Array.from({ length: 1000 }, (_, j) => JSON.stringify(`user${i + j}@example.com`));
        produced = i + 1000;
        yield (i === 0 ? '' : ',') + part.join(',');
      }
      yield '],"name":"big"}';
    }
    const upload = readJsonUpload(body(), { maxRows: 1_000_000 });
    let seen = 0;
    let producedAtFirst = -1;
    for await (const email of upload.emails) {
      if (seen === 0) producedAtFirst = produced;
      assert.equal(email, `user${seen}@example.com`);
      seen += 1;
      // Never more than a chunk ahead of the consumer.
      assert.ok(produced - seen <= 1000, `${produced} produced, ${seen} consumed`);
    }
    assert.equal(seen, total);
    assert.equal(producedAtFirst, 1000);
    assert.deepEqual(upload.fields(), { name: 'big', webhookUrl: undefined, count: total });
  });
});

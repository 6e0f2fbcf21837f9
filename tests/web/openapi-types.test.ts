/**
 * The dashboard's API types (web/src/api/schema.d.ts) are generated from the server's OpenAPI
 * document: an API change that was not regenerated (`npm run openapi:types`) fails here, and the
 * web typecheck then shows the dashboard code that no longer fits.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { generateSchemaTypes, SCHEMA_TYPES_FILE } from '../../scripts/openapi-types.ts';

test('web/src/api/schema.d.ts matches the server’s OpenAPI document', async () => {
  const committed = await readFile(SCHEMA_TYPES_FILE, 'utf8');
  const generated = await generateSchemaTypes();
  // A whole-file diff of 2,000 lines helps nobody: name the first line that differs.
  if (generated !== committed) {
    const want = generated.split('\n');
    const have = committed.split('\n');
    const differs = want.findIndex((text, i) => text !== have[i]);
    const line = differs === -1 ? want.length : differs;
    assert.fail(
      `web/src/api/schema.d.ts is stale: run npm run openapi:types (first difference at line ${line + 1}:\n` +
        `  committed: ${have[line] ?? '(end of file)'}\n  generated: ${want[line] ?? '(end of file)'})`,
    );
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldForModel, GIBBERISH_FLOOR, gibberishOf } from '../../../src/verification/catch-all/index.ts';

const measure = (localPart: string) => gibberishOf(foldForModel(localPart)).measure;

describe('gibberishOf', () => {
  it('ranks a random string below a name', () => {
    assert.ok(measure('qwxzkjh') > measure('jane.doe'), `${measure('qwxzkjh')} vs ${measure('jane.doe')}`);
    assert.ok(measure('qwxzkjh') >= 0.5);
  });

  it('reads names as names', () => {
    for (const name of [
      'jane.doe',
      'john.smith',
      'mary.johnson',
      'jwilson',
      'elizabeth.taylor',
      'hans.schmidt',
    ]) {
      assert.ok(measure(name) < GIBBERISH_FLOOR, `${name}: ${measure(name)}`);
    }
  });

  it('catches keyboard rows, long consonant runs and random letters, each by its own feature', () => {
    assert.ok(gibberishOf('asdfghjk').keyboardRows >= 0.8);
    assert.ok(gibberishOf('xbrtkvn').consonantRun === 1);
    assert.ok(gibberishOf('kqzxvjwq').letterPairs >= 0.8);
  });

  it('does not judge short local parts or letters outside a–z', () => {
    assert.equal(measure('xq'), 0);
    assert.equal(measure('bob'), 0);
    assert.equal(measure('Ζωή.Παπαδοπούλου'), 0);
    assert.equal(measure('王小明'), 0);
  });

  it('stays in 0–1', () => {
    for (const text of ['', '....', '1234567', 'a'.repeat(500), 'zzzzzzzzzzzz', 'é'.repeat(9)]) {
      const { measure: m, letterPairs, consonantRun, keyboardRows } = gibberishOf(foldForModel(text));
      for (const value of [m, letterPairs, consonantRun, keyboardRows])
        assert.ok(value >= 0 && value <= 1, text);
    }
  });
});

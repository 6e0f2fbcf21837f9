import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dominantPattern, foldForModel, shapeOf } from '../../../src/verification/catch-all/index.ts';
import unlisted from '../../fixtures/catch-all/unlisted-names.json' with { type: 'json' };

const patternsOf = (localPart: string) => [...shapeOf(foldForModel(localPart)).patterns].sort();
const peers = (localParts: string[], confirmed = false) =>
  localParts.map((localPart) => ({ folded: foldForModel(localPart), confirmed }));

describe('shapeOf', () => {
  // Listed names make each shape specific.
  const cases: Array<[string, string[]]> = [
    ['john.smith', ['first.last']],
    ['John.Smith', ['first.last']],
    ['john_smith', ['first_last']],
    ['john-smith', ['first-last']],
    ['smith.john', ['last.first']],
    ['j.smith', ['f.last']],
    ['jsmith', ['flast']],
    ['johnsmith', ['firstlast']],
    ['john.s', ['first.l']],
    ['maryj', ['firstl']],
    ['john', ['first']],
    ['garcia', ['last']],
    ['john.q.smith', ['first.m.last']],
    ['mary.smith2', ['first.last']],
    ['mary.smith+news', ['first.last']],
    ['Müller.Hans', ['last.first']],
  ];
  for (const [localPart, expected] of cases) {
    it(`reads ${localPart} as ${expected.join(' or ')}`, () => {
      assert.deepEqual(patternsOf(localPart), expected);
      assert.equal(shapeOf(foldForModel(localPart)).evidence, 'names');
    });
  }

  it('leaves both orders open for two unlisted names, and says the evidence is the shape alone', () => {
    const [given, surname] = [unlisted.given[0]!, unlisted.surnames[0]!];
    const shape = shapeOf(`${given}.${surname}`);
    assert.deepEqual([...shape.patterns].sort(), ['first.last', 'last.first']);
    assert.equal(shape.evidence, 'structure');
  });

  it('keeps every one-word pattern open for an unlisted word', () => {
    const shape = shapeOf(unlisted.surnames[1]!);
    for (const pattern of ['flast', 'firstlast', 'first', 'last'])
      assert.ok(shape.patterns.has(pattern), pattern);
    assert.equal(shape.evidence, 'structure');
  });

  it('marks a half-listed name partial', () => {
    assert.equal(shapeOf(`mary.${unlisted.surnames[0]}`).evidence, 'partial');
  });

  it('finds no person pattern in digits inside a word or in four words', () => {
    assert.deepEqual(patternsOf('x7y.z'), []);
    assert.deepEqual(patternsOf('a.b.c.d'), []);
    assert.deepEqual(patternsOf('12345'), []);
    assert.deepEqual(patternsOf(''), []);
  });
});

describe('dominantPattern', () => {
  const firstDotLast = ['john.smith', 'mary.johnson', 'robert.brown', 'linda.davis'];

  it('finds the pattern most peers follow, with its share', () => {
    const dominant = dominantPattern(peers([...firstDotLast, 'jwilson']));
    assert.equal(dominant?.pattern, 'first.last');
    assert.equal(dominant?.share, 0.8);
    assert.equal(dominant?.peers, 5);
    assert.equal(dominantPattern(peers(['jsmith', 'mjohnson', 'rbrown', 'ldavis']))?.pattern, 'flast');
  });

  it('needs enough peers, and a clear majority', () => {
    assert.equal(dominantPattern(peers(['john.smith', 'mary.johnson'])), null);
    assert.equal(dominantPattern(peers(['john.smith', 'mary.johnson', 'rbrown', 'ldavis'])), null);
    assert.equal(dominantPattern([]), null);
  });

  it('counts a confirmed peer twice', () => {
    // Two seen peers alone are too few; one of them confirmed makes three.
    assert.equal(dominantPattern(peers(['john.smith', 'mary.johnson'])), null);
    const mixed = [...peers(['john.smith']), ...peers(['mary.johnson'], true)];
    assert.equal(dominantPattern(mixed)?.pattern, 'first.last');
  });

  it('lets listed names decide between first.last and last.first', () => {
    const reversed = [
      'smith.john',
      'johnson.mary',
      'brown.robert',
      `${unlisted.surnames[2]}.${unlisted.given[2]}`,
    ];
    assert.equal(dominantPattern(peers(reversed))?.pattern, 'last.first');
  });
});

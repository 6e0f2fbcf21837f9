/**
 * The suggestions stage against the public typo benchmark (tests/fixtures/conformance/typos/) and
 * against the 5,000 common mail domains as a false-positive set. Scored on the domain only:
 * some benchmark rows also fix the local part, which this stage never touches.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type CorrectionOptions, correctDomain } from '../../../src/verification/checks/suggest-engine.ts';
import commonDomains from '../../../src/verification/data/common-mail-domains.json' with { type: 'json' };

interface TypoRow {
  input: string;
  expected: string | null;
  source: string;
  note: string;
}

const rows: TypoRow[] = readFileSync(
  new URL('../../fixtures/conformance/typos/typo-corrections.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as TypoRow);

const PRODUCTION: CorrectionOptions = { useKnownDomains: true, excludedTarget: null };
const WITHOUT_KNOWN_LIST: CorrectionOptions = { useKnownDomains: false, excludedTarget: null };

/** The domain of a row's address (after the last `@`), lower-cased as normalize would. */
function domainOf(address: string): string {
  return address
    .slice(address.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();
}

/**
 * Rows this stage is known to get wrong, and why. Every miss must be listed here, so that a new
 * miss fails the test even while the rate stays above its floor.
 */
const KNOWN_MISSES = new Map<string, string>([
  [
    'john@example.co.',
    'a trailing dot after co reads as an unfinished co.uk (we say example.co.uk, not .com)',
  ],
  [
    'test@emaildomain.co',
    'mailcheck spec: emaildomain.com is on its own test list, not a popular domain; .co is real',
  ],
  ['emaildoman.com', 'mailcheck spec: emaildomain.com is on its own test list, not a popular domain'],
  [
    'test@mail.randomsmallcompany.cmo',
    'mailcheck leaves subdomains alone; we repair their TLD like fnando (x.example.gob)',
  ],
  ['hotmial', 'mailcheck fragment (a bare second-level name, not a domain)'],
  ['tahoo', 'mailcheck fragment (a bare second-level name, not a domain)'],
  ['livr', 'mailcheck fragment (a bare second-level name, not a domain)'],
  ['outllok', 'mailcheck fragment (a bare second-level name, not a domain)'],
  ['cmo', 'mailcheck fragment (a bare TLD, not a domain)'],
  ['ogr', 'mailcheck fragment (a bare TLD, not a domain)'],
  ['ifno', 'mailcheck fragment (a bare TLD, not a domain)'],
  ['com.uk', 'mailcheck fragment (a bare suffix, not a domain)'],
]);

interface Score {
  corrections: number;
  corrected: number;
  unchanged: number;
  falseSuggestions: number;
  mustChange: number;
  changed: number;
  misses: string[];
}

function scoreBenchmark(options: CorrectionOptions): Score {
  const score: Score = {
    corrections: 0,
    corrected: 0,
    unchanged: 0,
    falseSuggestions: 0,
    mustChange: 0,
    changed: 0,
    misses: [],
  };
  for (const row of rows) {
    const typed = domainOf(row.input);
    const suggested = correctDomain(typed, options);
    if (row.expected === null && row.note.includes('must be changed')) {
      score.mustChange++;
      if (suggested !== null && suggested !== typed) score.changed++;
      else score.misses.push(row.input);
      continue;
    }
    const expected = row.expected === null ? typed : domainOf(row.expected);
    if (expected === typed) {
      score.unchanged++;
      if (suggested !== null) {
        score.falseSuggestions++;
        score.misses.push(row.input);
      }
    } else {
      score.corrections++;
      if (suggested === expected) score.corrected++;
      else score.misses.push(row.input);
    }
  }
  return score;
}

const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(2)}%`;

describe('typo benchmark (tests/fixtures/conformance/typos)', () => {
  const production = scoreBenchmark(PRODUCTION);
  const alone = scoreBenchmark(WITHOUT_KNOWN_LIST);

  it('prints the figures', () => {
    const fragments = [...KNOWN_MISSES.values()].filter((reason) => reason.includes('fragment')).length;
    console.log(
      `typo benchmark: ${rows.length} rows; corrections ${production.corrected}/${production.corrections} ` +
        `(${percent(production.corrected, production.corrections)}; ` +
        `${percent(production.corrected, production.corrections - fragments)} without the ${fragments} mailcheck ` +
        `fragment rows); false suggestions on leave-unchanged rows ${production.falseSuggestions}/` +
        `${production.unchanged} (${percent(production.falseSuggestions, production.unchanged)}); ` +
        `must-change rows changed ${production.changed}/${production.mustChange}`,
    );
    console.log(
      `typo benchmark without the known-domain list: corrections ${percent(alone.corrected, alone.corrections)}, ` +
        `false suggestions ${alone.falseSuggestions}/${alone.unchanged} ` +
        `(${percent(alone.falseSuggestions, alone.unchanged)})`,
    );
    assert.ok(production.corrections > 200 && production.unchanged > 50);
  });

  it('corrects at least 90% of the correction rows to exactly the expected domain', () => {
    assert.ok(
      production.corrected / production.corrections >= 0.9,
      `${production.corrected}/${production.corrections}`,
    );
  });

  it('suggests on at most 3% of the leave-unchanged rows, with or without the known list', () => {
    assert.ok(production.falseSuggestions / production.unchanged <= 0.03);
    assert.ok(alone.falseSuggestions / alone.unchanged <= 0.03);
  });

  it('changes every must-change row', () => {
    assert.equal(production.changed, production.mustChange);
  });

  it('misses only the rows listed with a reason', () => {
    assert.deepEqual(
      production.misses.filter((input) => !KNOWN_MISSES.has(input)),
      [],
      'new misses: list them in KNOWN_MISSES with a reason, or fix them',
    );
  });
});

describe('false positives on the 5,000 common mail domains', () => {
  const domains = commonDomains.domains;

  it('never suggests for a known domain', () => {
    const suggested = domains.filter((domain) => correctDomain(domain, PRODUCTION) !== null);
    console.log(`common mail domains with a suggestion (production): ${suggested.length}/${domains.length}`);
    assert.deepEqual(suggested, []);
  });

  it('suggests for at most 3% of them with the known list off and each domain left out of the targets', () => {
    const suggested: string[] = [];
    for (const domain of domains) {
      const answer = correctDomain(domain, { useKnownDomains: false, excludedTarget: domain });
      if (answer !== null) suggested.push(`${domain}→${answer}`);
    }
    console.log(
      `common mail domains with a suggestion, algorithm alone (no known list, own entry not a target): ` +
        `${suggested.length}/${domains.length} (${percent(suggested.length, domains.length)}): ${suggested.join(' ')}`,
    );
    assert.ok(suggested.length / domains.length <= 0.03);
  });
});

/**
 * Agreement of the syntax check with the public syntax suites in tests/fixtures/conformance/syntax/,
 * printed as the Markdown tables of docs/conformance.md.
 *
 *   node --import tsx scripts/conformance-report.ts          # tables
 *   node --import tsx scripts/conformance-report.ts --rows   # and every differing row
 *
 * Each row's `options` is honoured where our check can express it: quoted local parts, address
 * literals, UTF-8 local parts, non-ASCII anywhere, a minimum number of domain labels and a TLD
 * allow-list are applied on top of our verdict. Rows whose options cannot be expressed (display
 * names, host lists, ignored length limits...) are still counted, and reported apart.
 */
import { readFileSync } from 'node:fs';
import { normalizeAddressUntrimmed } from '../src/verification/checks/normalize.ts';
import { checkSyntax } from '../src/verification/checks/syntax.ts';
import type { NormalizedAddress, SyntaxCheck } from '../src/verification/report.ts';

type Verdict = 'valid' | 'invalid';

interface SuiteRow {
  address: string;
  expected: Verdict;
  source: string;
  options?: string | null;
}

/** What a row's options allow, in terms our check can apply. */
interface Policy {
  allowQuoted: boolean;
  allowLiteral: boolean;
  allowUtf8Local: boolean;
  allowNonAscii: boolean;
  minDomainLabels: number;
  tldAllowList: readonly string[] | null;
}

type Interpretation = { policy: Policy; inexpressible: string | null };

const MAILBOX_VIEW: Policy = {
  allowQuoted: true,
  allowLiteral: true,
  allowUtf8Local: true,
  allowNonAscii: true,
  minDomainLabels: 1,
  tldAllowList: null,
};

/** python-email-validator: quoted local parts and literals are off by default, SMTPUTF8 on. */
function pythonPolicy(options: string | null | undefined): Interpretation {
  const policy = { ...MAILBOX_VIEW, allowQuoted: false, allowLiteral: false };
  let inexpressible: string | null = null;
  for (const part of (options ?? '').split(',')) {
    const [key, value] = part.replace('(default)', '').trim().split('=');
    const on = value?.trim() === 'True';
    if (key === 'allow_quoted_local') policy.allowQuoted = on;
    else if (key === 'allow_domain_literal') policy.allowLiteral = on;
    else if (key === 'allow_smtputf8') policy.allowUtf8Local = on;
    // strict (local part <= 64) is what we always do; test_environment lifts a check we never make.
    else if (key === 'allow_display_name' || key === 'allow_empty_local') inexpressible = key;
  }
  return { policy, inexpressible };
}

/** @hapi/address: no quoted local parts, no literals; two labels and Unicode by default. */
function hapiPolicy(options: string | null | undefined): Interpretation {
  const parsed = options ? (JSON.parse(options) as Record<string, unknown>) : {};
  const tlds = parsed.tlds as { allow?: string[] } | undefined;
  return {
    policy: {
      ...MAILBOX_VIEW,
      allowQuoted: false,
      allowLiteral: false,
      allowNonAscii: parsed.allowUnicode !== false,
      minDomainLabels: typeof parsed.minDomainSegments === 'number' ? parsed.minDomainSegments : 2,
      tldAllowList: tlds?.allow ?? null,
    },
    inexpressible: parsed.ignoreLength === true ? 'ignoreLength' : null,
  };
}

const VALIDATOR_INEXPRESSIBLE = [
  'allow_display_name',
  'require_display_name',
  'host_blacklist',
  'host_whitelist',
  'blacklisted_chars',
  'domain_specific_validation',
  'allow_underscores',
];

/** validator.js isEmail: quoted local parts on, IP domains off, UTF-8 local parts on by default. */
function validatorPolicy(options: string | null | undefined): Interpretation {
  const parsed = options ? (JSON.parse(options) as Record<string, unknown>) : {};
  let inexpressible = VALIDATOR_INEXPRESSIBLE.find((key) => key in parsed) ?? null;
  if (parsed.ignore_max_length === true) inexpressible = 'ignore_max_length';
  return {
    policy: {
      ...MAILBOX_VIEW,
      allowLiteral: parsed.allow_ip_domain === true,
      allowUtf8Local: parsed.allow_utf8_local_part !== false,
    },
    inexpressible,
  };
}

const SUITES: { name: string; interpret: (options: string | null | undefined) => Interpretation }[] = [
  { name: 'isemail-tests', interpret: () => ({ policy: MAILBOX_VIEW, inexpressible: null }) },
  { name: 'isemail-tests-original', interpret: () => ({ policy: MAILBOX_VIEW, inexpressible: null }) },
  { name: 'python-email-validator', interpret: pythonPolicy },
  { name: 'hapi-address', interpret: hapiPolicy },
  { name: 'validatorjs-isEmail', interpret: validatorPolicy },
  { name: 'rfc3696', interpret: () => ({ policy: MAILBOX_VIEW, inexpressible: null }) },
];

const NON_ASCII = /[^\x00-\x7f]/;

/** Our verdict for the row under its policy. */
function verdictUnder(policy: Policy, address: NormalizedAddress, check: SyntaxCheck): Verdict {
  if (!check.valid) return 'invalid';
  if (check.quotedLocalPart && !policy.allowQuoted) return 'invalid';
  if (check.addressLiteral && !policy.allowLiteral) return 'invalid';
  if (check.internationalized && !policy.allowUtf8Local) return 'invalid';
  if (!policy.allowNonAscii && NON_ASCII.test(address.email)) return 'invalid';
  if (!check.addressLiteral) {
    const labels = (address.asciiDomain ?? '').split('.');
    if (labels.length < policy.minDomainLabels) return 'invalid';
    if (policy.tldAllowList && !policy.tldAllowList.includes(labels[labels.length - 1] ?? ''))
      return 'invalid';
  }
  return 'valid';
}

const SPECIAL_USE = /\.(arpa|invalid|local|localhost|onion|test)$/;

/** Why we differ from a row, by the first rule that fits. */
function categorize(
  row: SuiteRow,
  inexpressible: string | null,
  address: NormalizedAddress,
  check: SyntaxCheck,
) {
  if (inexpressible !== null) return `option we do not express (${inexpressible})`;
  const domain = address.asciiDomain ?? '';
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (check.valid) {
    if (check.addressLiteral) return 'general address literal `[tag:content]` accepted';
    if (NON_ASCII.test(address.localPart)) {
      return Buffer.byteLength(row.address) > 254
        ? 'length counted after NFC (254 octets once composed)'
        : 'Unicode local-part policy (python-email-validator checks the decomposed form)';
    }
    if (!domain.includes('.')) return 'single-label domain accepted (isemail: RFC5321_TLD)';
    if (SPECIAL_USE.test(`.${domain}`)) return 'special-use name (RFC 6761) accepted; left to DNS';
    if (/^[0-9]+$/.test(tld)) return 'numeric top-level label accepted (isemail: RFC5321_TLDNUMERIC)';
    if (NON_ASCII.test(address.rawDomain) || address.rawDomain !== domain) {
      return 'UTS-46 maps or allows the domain (full-width letters, symbols)';
    }
    return 'top-level label shape (one letter, hyphen) accepted';
  }
  if (row.address.includes('xn--')) return 'invalid Punycode A-label rejected (IDNA2008)';
  if (check.error === 'local_part_too_long' || check.error === 'address_too_long') return 'length limit';
  return 'other';
}

function loadSuite(name: string): SuiteRow[] {
  const url = new URL(`../tests/fixtures/conformance/syntax/${name}.jsonl`, import.meta.url);
  return readFileSync(url, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SuiteRow);
}

const showRows = process.argv.includes('--rows');
const summary: string[] = [
  '| suite | rows | agree | agreement | rows with inexpressible options | agreement on the other rows |',
  '|---|---:|---:|---:|---:|---:|',
];
const breakdown: string[] = ['| suite | category | rows |', '|---|---|---:|'];
const differing: string[] = [];

for (const suite of SUITES) {
  const rows = loadSuite(suite.name);
  let agree = 0;
  let expressible = 0;
  let agreeExpressible = 0;
  const categories = new Map<string, number>();
  for (const row of rows) {
    const { policy, inexpressible } = suite.interpret(row.options);
    const address = normalizeAddressUntrimmed(row.address);
    const check = checkSyntax(address);
    const ours = verdictUnder(policy, address, check);
    const same = ours === row.expected;
    if (same) agree++;
    if (inexpressible === null) {
      expressible++;
      if (same) agreeExpressible++;
    }
    if (!same) {
      const category = categorize(row, inexpressible, address, check);
      categories.set(category, (categories.get(category) ?? 0) + 1);
      differing.push(`${suite.name}\t${JSON.stringify(row.address)}\texpected ${row.expected}\t${category}`);
    }
  }
  const percent = (n: number, of: number) => (of === 0 ? '—' : `${((100 * n) / of).toFixed(1)}%`);
  summary.push(
    `| ${suite.name} | ${rows.length} | ${agree} | ${percent(agree, rows.length)} | ${rows.length - expressible} | ` +
      `${percent(agreeExpressible, expressible)} |`,
  );
  for (const [category, count] of [...categories].sort((a, b) => b[1] - a[1])) {
    breakdown.push(`| ${suite.name} | ${category} | ${count} |`);
  }
}

console.log(summary.join('\n'));
console.log();
console.log(breakdown.join('\n'));
if (showRows) {
  console.log();
  console.log(differing.join('\n'));
}

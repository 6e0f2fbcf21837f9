/**
 * A bounded SPF evaluator (RFC 7208 `check_host()`): ip4, ip6, a, mx, include, exists, redirect and
 * all, with the 10-lookup limit (§4.6.4), at most 10 addresses looked up per `mx`, and at most 2
 * void lookups. `ptr` is counted but never matches (§5.5 says not to use it). Its answer says which
 * mechanism decided and through which includes, so a finding can name it.
 */
import type { DnsAnswer } from '../../verification/ports.ts';
import { type IpValue, inNetwork, parseIp } from './ip-address.ts';
import { expandMacros, type MacroContext } from './macro.ts';
import type { SpfDns } from './ports.ts';
import { parseSpfRecord, pickSpfRecord, type SpfMechanism, type SpfQualifier } from './record.ts';

/** The results of RFC 7208 §2.6. */
export type SpfResult = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'permerror' | 'temperror';

/** What an evaluation found, with enough to explain it. */
export interface SpfEvaluation {
  result: SpfResult;
  /** The top domain's `v=spf1` text, when it has one. */
  record: string | null;
  /** The mechanism that decided (`ip4:192.0.2.0/24`), and the domains it was reached through. */
  matched: { mechanism: string; domain: string; via: string[] } | null;
  /** Why: for none, permerror and temperror in plain words. */
  problem: string | null;
  /** DNS lookups counted against the limit, and void ones. */
  lookups: number;
  voidLookups: number;
}

/** The question: may `ip` send mail for `domain`? */
export interface SpfQuestion {
  ip: string;
  domain: string;
  /** The envelope sender; `postmaster@<domain>` when absent. */
  sender?: string;
  helo?: string;
}

/** The RFC's bounds, overridable for tests. */
export interface SpfLimits {
  maxLookups?: number;
  maxVoidLookups?: number;
  maxMxAddresses?: number;
}

const RESULT_OF: Record<SpfQualifier, SpfResult> = {
  '+': 'pass',
  '-': 'fail',
  '~': 'softfail',
  '?': 'neutral',
};

class Stop {
  constructor(
    readonly result: 'permerror' | 'temperror',
    readonly problem: string,
  ) {}
}

interface Walk {
  dns: SpfDns;
  ip: IpValue;
  sender: string;
  helo: string;
  limits: Required<SpfLimits>;
  lookups: number;
  voidLookups: number;
}

type Verdict = {
  result: SpfResult;
  matched: SpfEvaluation['matched'];
  record: string | null;
  problem: string | null;
};

/** Evaluates the SPF policy of `question.domain` for `question.ip`. Never throws for DNS trouble. */
export async function checkHost(
  dns: SpfDns,
  question: SpfQuestion,
  limits: SpfLimits = {},
): Promise<SpfEvaluation> {
  const ip = parseIp(question.ip);
  const domain = question.domain.toLowerCase().replace(/\.$/, '');
  const walk: Walk = {
    dns,
    ip: ip ?? { family: 4, value: 0n },
    sender: question.sender ?? `postmaster@${domain}`,
    helo: question.helo ?? domain,
    limits: { maxLookups: 10, maxVoidLookups: 2, maxMxAddresses: 10, ...limits },
    lookups: 0,
    voidLookups: 0,
  };
  const done = (verdict: Verdict): SpfEvaluation => ({
    ...verdict,
    lookups: walk.lookups,
    voidLookups: walk.voidLookups,
  });
  if (ip === null)
    return done({
      result: 'permerror',
      matched: null,
      record: null,
      problem: `"${question.ip}" is not an IP address`,
    });
  try {
    return done(await evaluateDomain(walk, domain, []));
  } catch (error) {
    if (error instanceof Stop)
      return done({ result: error.result, matched: null, record: null, problem: error.problem });
    throw error;
  }
}

async function evaluateDomain(walk: Walk, domain: string, via: string[]): Promise<Verdict> {
  const txt = await walk.dns.resolveTxt(domain);
  if (txt.kind === 'error')
    throw new Stop('temperror', `the TXT lookup of ${domain} failed (${txt.failure})`);
  const picked = pickSpfRecord(txt.kind === 'ok' ? txt.records : []);
  if (picked.kind === 'none') {
    const why = txt.kind === 'nxdomain' ? `${domain} does not exist` : `${domain} publishes no v=spf1 record`;
    return { result: 'none', matched: null, record: null, problem: why };
  }
  if (picked.kind === 'many') throw new Stop('permerror', `${domain} publishes more than one v=spf1 record`);
  const record = parseSpfRecord(picked.text);
  if (typeof record === 'string') throw new Stop('permerror', `${domain}'s SPF record: ${record}`);
  const context: MacroContext = { ip: walk.ip, domain, sender: walk.sender, helo: walk.helo };
  for (const mechanism of record.mechanisms) {
    const outcome = await matches(walk, mechanism, context, [...via, domain]);
    if (outcome === 'match') {
      return {
        result: RESULT_OF[mechanism.qualifier],
        matched: { mechanism: mechanism.text, domain, via },
        record: picked.text,
        problem: null,
      };
    }
    if (typeof outcome === 'object') return { ...outcome, record: picked.text };
  }
  if (record.redirect !== null) {
    const target = targetName(record.redirect, context);
    count(walk);
    const redirected = await evaluateDomain(walk, target, [...via, domain]);
    // A redirect to a domain without SPF is a permanent error (RFC 7208 §6.1).
    if (redirected.result === 'none')
      throw new Stop('permerror', `redirect=${target}: ${redirected.problem}`);
    return { ...redirected, record: picked.text };
  }
  return { result: 'neutral', matched: null, record: picked.text, problem: null };
}

/** 'match', 'no', or (from an include) a verdict that ends the evaluation. */
async function matches(
  walk: Walk,
  mechanism: SpfMechanism,
  context: MacroContext,
  via: string[],
): Promise<'match' | 'no' | Verdict> {
  switch (mechanism.kind) {
    case 'all':
      return 'match';
    case 'ip4':
    case 'ip6': {
      const network = parseIp(mechanism.network);
      if (network === null || (network.family === 4) !== (mechanism.kind === 'ip4')) {
        throw new Stop('permerror', `bad address in "${mechanism.text}"`);
      }
      return inNetwork(walk.ip, network, mechanism.prefix) ? 'match' : 'no';
    }
    case 'a': {
      count(walk);
      const host = mechanism.domain === null ? context.domain : targetName(mechanism.domain, context);
      const prefix = walk.ip.family === 4 ? mechanism.cidr4 : mechanism.cidr6;
      return (await addressesOf(walk, host)).some((address) => inNetwork(walk.ip, address, prefix))
        ? 'match'
        : 'no';
    }
    case 'mx': {
      count(walk);
      const host = mechanism.domain === null ? context.domain : targetName(mechanism.domain, context);
      const mx = countVoid(walk, await walk.dns.resolveMx(host), host);
      if (mx.length > walk.limits.maxMxAddresses)
        throw new Stop('permerror', `${host} has more than ${walk.limits.maxMxAddresses} MX hosts for "mx"`);
      const prefix = walk.ip.family === 4 ? mechanism.cidr4 : mechanism.cidr6;
      for (const record of mx) {
        const addresses = await addressesOf(walk, record.exchange);
        if (addresses.some((address) => inNetwork(walk.ip, address, prefix))) return 'match';
      }
      return 'no';
    }
    case 'exists': {
      count(walk);
      const name = targetName(mechanism.domain, context);
      return countVoid(walk, await walk.dns.resolveA(name), name).length > 0 ? 'match' : 'no';
    }
    case 'ptr':
      count(walk);
      return 'no';
    case 'include': {
      count(walk);
      const target = targetName(mechanism.domain, context);
      const included = await evaluateDomain(walk, target, via);
      switch (included.result) {
        case 'pass':
          return { ...included, result: RESULT_OF[mechanism.qualifier] };
        case 'none':
          throw new Stop('permerror', `include:${target}: ${included.problem}`);
        default:
          return 'no';
      }
    }
  }
}

function targetName(spec: string, context: MacroContext): string {
  const expanded = expandMacros(spec, context);
  if (typeof expanded === 'string') throw new Stop('permerror', expanded);
  return expanded.name.toLowerCase();
}

function count(walk: Walk): void {
  walk.lookups++;
  if (walk.lookups > walk.limits.maxLookups) {
    throw new Stop('permerror', `more than ${walk.limits.maxLookups} DNS lookups (RFC 7208 §4.6.4)`);
  }
}

/** The records of an answer; NXDOMAIN and NODATA count as void lookups, failures stop. */
function countVoid<T>(walk: Walk, answer: DnsAnswer<T[]>, name: string): T[] {
  if (answer.kind === 'error')
    throw new Stop('temperror', `the lookup of ${name} failed (${answer.failure})`);
  if (answer.kind === 'ok' && answer.records.length > 0) return answer.records;
  walk.voidLookups++;
  if (walk.voidLookups > walk.limits.maxVoidLookups) {
    throw new Stop(
      'permerror',
      `more than ${walk.limits.maxVoidLookups} lookups found nothing (RFC 7208 §4.6.4)`,
    );
  }
  return [];
}

async function addressesOf(walk: Walk, host: string): Promise<IpValue[]> {
  const answer = walk.ip.family === 4 ? await walk.dns.resolveA(host) : await walk.dns.resolveAaaa(host);
  return countVoid(walk, answer, host).flatMap((text) => {
    const parsed = parseIp(text);
    return parsed === null ? [] : [parsed];
  });
}

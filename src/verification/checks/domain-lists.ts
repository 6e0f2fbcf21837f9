/**
 * The lists stage: disposable domain, role-based local part, free provider. Pure: the
 * operator's allow and deny entries come in as values (read by `adapters/domain-lists/operator-lists.ts`).
 */
import type { ListsCheck } from '../report.ts';
import { buildDomainRules, buildMxHostDomains, classifyDomain, hasDisposableMxHost } from './disposable.ts';
import { DomainMemo } from './domain-memo.ts';
import { isFreeProviderDomain } from './free-provider.ts';
import { isRoleLocalPart } from './role.ts';

/** Operator additions to the built-in lists (ASCII domains; `*.`/`.` prefixes and case are tolerated). */
export interface ListCheckerOptions {
  /** Never disposable, with every subdomain; beats every other rule, the MX rule included. */
  allowDomains?: Iterable<string>;
  /** Always disposable, with every subdomain. */
  denyDomains?: Iterable<string>;
  /** More mail-server domains of throwaway services, on top of `data/disposable-mx-hosts.json`. */
  disposableMxHosts?: Iterable<string>;
}

/** The lists stage, built once with its tables; `check` runs for every address. */
export interface ListChecker {
  /** Disposable, role-based and free-provider verdicts for one address (ASCII, lower-case domain). */
  check(localPart: string, asciiDomain: string): ListsCheck;
  /**
   * Whether the domain's MX hosts belong to a known throwaway service (run after DNS). Always false
   * for an operator-allowed domain.
   */
  isDisposableMx(asciiDomain: string, mxHosts: readonly string[]): boolean;
}

interface DomainVerdicts {
  verdict: ReturnType<typeof classifyDomain>;
  disposableSource: ListsCheck['disposableSource'];
  freeProvider: boolean;
}

/** Builds a list checker with the operator's allow, deny and MX-host entries. */
export function createListChecker(options: ListCheckerOptions = {}): ListChecker {
  const domainRules = buildDomainRules(options.allowDomains ?? [], options.denyDomains ?? []);
  const mxDomains = buildMxHostDomains(options.disposableMxHosts ?? []);
  // A domain's verdicts, remembered for this checker's tables (a new checker, new tables, none).
  const verdicts = new DomainMemo<DomainVerdicts>();
  const verdictsOf = (asciiDomain: string): DomainVerdicts => {
    const verdict = classifyDomain(asciiDomain, domainRules);
    const disposableSource = verdict === 'allowed' ? null : verdict;
    return {
      verdict,
      disposableSource,
      // Disposable wins: a throwaway inbox is reported as disposable, never also as a free provider.
      freeProvider: disposableSource === null && isFreeProviderDomain(asciiDomain),
    };
  };
  return {
    check(localPart, asciiDomain) {
      const { disposableSource, freeProvider } = verdicts.get(asciiDomain, verdictsOf);
      return {
        disposable: disposableSource !== null,
        disposableSource,
        roleBased: isRoleLocalPart(localPart),
        freeProvider,
      };
    },
    isDisposableMx(asciiDomain, mxHosts) {
      if (verdicts.get(asciiDomain, verdictsOf).verdict === 'allowed') return false;
      return hasDisposableMxHost(mxHosts, mxDomains);
    },
  };
}

/** The checker without operator files: the maintained lists only. */
export const defaultListChecker: ListChecker = createListChecker();

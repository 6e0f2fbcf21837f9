/**
 * The lists stage: disposable domain, role-based local part, free provider. Pure: the
 * operator's allow and deny entries come in as values (read by `adapters/domain-lists/operator-lists.ts`).
 */
import type { ListsCheck } from '../report.ts';
import { buildDomainRules, buildMxHostDomains, classifyDomain, hasDisposableMxHost } from './disposable.ts';
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

/** Builds a list checker with the operator's allow, deny and MX-host entries. */
export function createListChecker(options: ListCheckerOptions = {}): ListChecker {
  const domainRules = buildDomainRules(options.allowDomains ?? [], options.denyDomains ?? []);
  const mxDomains = buildMxHostDomains(options.disposableMxHosts ?? []);
  return {
    check(localPart, asciiDomain) {
      const verdict = classifyDomain(asciiDomain, domainRules);
      const disposableSource = verdict === 'allowed' ? null : verdict;
      const disposable = disposableSource !== null;
      return {
        disposable,
        disposableSource,
        roleBased: isRoleLocalPart(localPart),
        // Disposable wins: a throwaway inbox is reported as disposable, never also as a free provider.
        freeProvider: !disposable && isFreeProviderDomain(asciiDomain),
      };
    },
    isDisposableMx(asciiDomain, mxHosts) {
      if (classifyDomain(asciiDomain, domainRules) === 'allowed') return false;
      return hasDisposableMxHost(mxHosts, mxDomains);
    },
  };
}

/** The checker without operator files: the maintained lists only. */
export const defaultListChecker: ListChecker = createListChecker();

/**
 * The verification pipeline:
 * normalize → syntax → lists → suggestions → DNS → SMTP probe → scoring.
 * Each stage returns its own value; the report keeps them all; a decisive failure skips the rest.
 */
import { checkDns } from './checks/dns.ts';
import type { ListChecker } from './checks/domain-lists.ts';
import { normalizeAddress } from './checks/normalize.ts';
import { checkSuggestions } from './checks/suggest.ts';
import { checkSyntax } from './checks/syntax.ts';
import type { Clock, DnsResolver, MailboxProber, VerifyContext } from './ports.ts';
import type { DnsCheck, ListsCheck, SmtpCheck, VerificationReport, VerificationResult } from './report.ts';
import { toVerificationResult } from './result.ts';
import { scoreReport } from './scoring.ts';

/** What the pipeline needs from the outside world, through ports. */
export interface VerifierDeps {
  dns: DnsResolver;
  prober: MailboxProber;
  lists: ListChecker;
  clock: Clock;
}

/** Runs the pipeline for one address at a time; safe to call concurrently. */
export class Verifier {
  readonly #deps: VerifierDeps;

  constructor(deps: VerifierDeps) {
    this.#deps = deps;
  }

  /** Verifies one address and returns the public result. Never throws for any input string. */
  async verify(raw: string, context: VerifyContext = {}): Promise<VerificationResult> {
    const report = await this.report(raw, context);
    return toVerificationResult(report, scoreReport(report));
  }

  /** Runs every stage and returns the full report (all stage results side by side). */
  async report(raw: string, context: VerifyContext = {}): Promise<VerificationReport> {
    const started = this.#deps.clock.now();
    const normalized = normalizeAddress(raw);
    const syntax = checkSyntax(normalized);
    const asciiDomain = normalized.asciiDomain;
    if (!syntax.valid || asciiDomain === null) {
      return finish(this.#deps.clock, started, {
        normalized,
        syntax,
        lists: null,
        suggestions: null,
        dns: null,
        smtp: null,
      });
    }

    let lists = this.#deps.lists.check(normalized.localPart, asciiDomain);
    if (syntax.addressLiteral) {
      // A literal names a host directly: no DNS, and it is never probed (an SSRF guard).
      return finish(this.#deps.clock, started, {
        normalized,
        syntax,
        lists,
        suggestions: null,
        dns: null,
        smtp: null,
      });
    }
    const suggestions = checkSuggestions(normalized.localPart, asciiDomain);
    const dns = await checkDns(asciiDomain, this.#deps.dns);
    lists = this.#withMxDisposable(lists, asciiDomain, dns);

    let smtp: SmtpCheck | null = null;
    if (dns.outcome === 'mx' || dns.outcome === 'implicit_mx') {
      smtp = await this.#deps.prober.probe({
        address: `${normalized.localPart}@${asciiDomain}`,
        localPart: normalized.localPart,
        asciiDomain,
        mxHosts: dns.mxHosts,
        internationalized: syntax.internationalized,
        accountId: context.accountId,
        ...(context.moreToCome === true && { moreToCome: true }),
      });
    }
    return finish(this.#deps.clock, started, { normalized, syntax, lists, suggestions, dns, smtp });
  }

  /** A domain whose MX hosts belong to a known disposable provider is disposable too. */
  #withMxDisposable(lists: ListsCheck, asciiDomain: string, dns: DnsCheck): ListsCheck {
    if (lists.disposable || dns.outcome !== 'mx') return lists;
    const hosts = dns.mxHosts.map((mx) => mx.exchange);
    if (!this.#deps.lists.isDisposableMx(asciiDomain, hosts)) return lists;
    // Disposable and free provider exclude each other, whichever rule found the domain.
    return { ...lists, disposable: true, disposableSource: 'mx_host', freeProvider: false };
  }
}

function finish(
  clock: Clock,
  started: number,
  stages: Omit<VerificationReport, 'durationMs'>,
): VerificationReport {
  // Filled in place rather than spread: this runs once per address on the hot path.
  const report = stages as VerificationReport;
  report.durationMs = clock.now() - started;
  return report;
}

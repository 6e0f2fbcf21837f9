/**
 * What the SPF evaluator and analysis ask of DNS (RFC 7208 §4.6.4 counts these lookups). A port of
 * its own, so the host check and the sender-domain checks use them with any resolver.
 */
import type { DnsAnswer } from '../../verification/ports.ts';
import type { MxRecord } from '../../verification/report.ts';

/** The lookups SPF needs: TXT for policies, A/AAAA and MX for the `a` and `mx` mechanisms. */
export interface SpfDns {
  /** TXT strings of `name`, each record's chunks joined (RFC 7208 §3.3). */
  resolveTxt(name: string): Promise<DnsAnswer<string[]>>;
  resolveA(host: string): Promise<DnsAnswer<string[]>>;
  resolveAaaa(host: string): Promise<DnsAnswer<string[]>>;
  resolveMx(domain: string): Promise<DnsAnswer<MxRecord[]>>;
}

/**
 * Fetches MTA-STS policies (RFC 8461 §3.3) over `node:https`, behind the SSRF guard: the host
 * `mta-sts.<domain>` is resolved with the service's own resolver, every address outside the public
 * internet is refused (unless the operator allows private ones, for tests), and the connection goes
 * to the address checked, with the name for SNI and the certificate check. No redirect is followed;
 * the body is bounded.
 */
import https from 'node:https';
import tls from 'node:tls';
import { probeRefusal } from '../../net/address-guard.ts';
import type { MtaStsPolicyFetcher, PolicyFetchOutcome } from '../../sender-checks/ports.ts';
import type { DnsResolver } from '../../verification/ports.ts';

/** RFC 8461 §3.2 bounds a policy at 64 KB. */
const MAX_POLICY_BYTES = 65_536;

export interface HttpsPolicyFetcherOptions {
  /** Allow private and loopback addresses (MAILVET_MTA_STS_ALLOW_PRIVATE, tests only). */
  allowPrivate: boolean;
  /** The HTTPS port (443; tests serve elsewhere). */
  port?: number;
  /** Extra trusted CA certificates (PEM), besides Node's. */
  extraCa?: string | Buffer;
}

/** The MTA-STS policy fetcher. */
export class HttpsPolicyFetcher implements MtaStsPolicyFetcher {
  readonly #dns: Pick<DnsResolver, 'resolveA' | 'resolveAaaa'>;
  readonly #options: HttpsPolicyFetcherOptions;

  constructor(dns: Pick<DnsResolver, 'resolveA' | 'resolveAaaa'>, options: HttpsPolicyFetcherOptions) {
    this.#dns = dns;
    this.#options = options;
  }

  /** GET https://mta-sts.<domain>/.well-known/mta-sts.txt. */
  async fetchPolicy(domain: string, timeoutMs: number, signal?: AbortSignal): Promise<PolicyFetchOutcome> {
    const host = `mta-sts.${domain}`;
    const [v4, v6] = await Promise.all([this.#dns.resolveA(host), this.#dns.resolveAaaa(host)]);
    const addresses = [v4, v6].flatMap((answer) => (answer.kind === 'ok' ? answer.records : []));
    if (addresses.length === 0) return { kind: 'failed', failure: 'dns', detail: `${host} has no address` };
    const allowed = this.#options.allowPrivate
      ? addresses
      : addresses.filter((ip) => probeRefusal(ip) === null);
    const ip = allowed[0];
    if (ip === undefined)
      return {
        kind: 'failed',
        failure: 'refused_address',
        detail: `${host} resolves only to addresses outside the public internet`,
      };
    return this.#get(host, ip, timeoutMs, signal);
  }

  #get(host: string, ip: string, timeoutMs: number, signal?: AbortSignal): Promise<PolicyFetchOutcome> {
    const ca = this.#options.extraCa;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: PolicyFetchOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        request.destroy();
        resolve(outcome);
      };
      const request = https.request({
        host: ip,
        port: this.#options.port ?? 443,
        path: '/.well-known/mta-sts.txt',
        method: 'GET',
        servername: host,
        headers: { host, accept: 'text/plain' },
        agent: false,
        ...(ca !== undefined && { ca: [...tls.rootCertificates, ca] }),
      });
      const onAbort = () =>
        finish({ kind: 'failed', failure: 'timeout', detail: 'the check ran out of time' });
      const timer = setTimeout(
        () => finish({ kind: 'failed', failure: 'timeout', detail: `no answer within ${timeoutMs} ms` }),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const tlsTrouble = /CERT|SSL|TLS|SELF_SIGNED|ALTNAME/i.test(`${error.code ?? ''} ${error.message}`);
        finish({
          kind: 'failed',
          failure: tlsTrouble ? 'tls' : 'connect',
          detail: `${error.code ?? 'error'}: ${error.message}`,
        });
      });
      request.on('response', (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return finish({
            kind: 'failed',
            failure: 'http_status',
            detail: `HTTP ${response.statusCode} (redirects are not followed)`,
          });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_POLICY_BYTES)
            return finish({ kind: 'failed', failure: 'too_large', detail: 'the policy is over 64 KB' });
          chunks.push(chunk);
        });
        response.on('end', () =>
          finish({
            kind: 'ok',
            body: Buffer.concat(chunks).toString('utf8'),
            contentType: response.headers['content-type'] ?? null,
          }),
        );
        response.on('error', (error) =>
          finish({ kind: 'failed', failure: 'connect', detail: error.message }),
        );
      });
      request.end();
    });
  }
}

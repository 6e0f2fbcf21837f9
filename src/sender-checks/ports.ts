/**
 * Ports of the sender-domain checks: the DNS questions they ask, a STARTTLS probe of an MX host and
 * an HTTPS fetch of an MTA-STS policy. Adapters implement them; the composition root wires them.
 * This folder opens no socket itself.
 */
import type { DoctorDns } from '../doctor/ports.ts';

/** MX, A, AAAA, TXT and PTR lookups (the host check's resolver has them all). */
export type SenderDns = DoctorDns;

/** What the STARTTLS probe is asked: one MX host at one of its addresses. */
export interface TlsProbeRequest {
  /** The MX host's name: the certificate must be valid for it. */
  host: string;
  ip: string;
  port: number;
  helo: string;
  /** The whole conversation's bound, ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What the server's certificate says, as the probe read it. */
export interface CertificateFacts {
  /** Chains to a trusted root and is within its dates. */
  trusted: boolean;
  /** Why not, in the TLS library's words (`DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`...). */
  trustProblem: string | null;
  /** Valid for the MX host's name (RFC 6125 rules). */
  nameMatches: boolean;
  subject: string | null;
  issuer: string | null;
  /** `DNS:` names of the subject alternative name extension. */
  altNames: string[];
  validTo: string | null;
}

/** One STARTTLS probe's outcome. Expected failures are values. */
export type TlsProbeOutcome =
  | { kind: 'unreachable'; detail: string }
  | { kind: 'refused_greeting'; code: number; text: string }
  | { kind: 'no_starttls'; ehloKeywords: string[] }
  | { kind: 'tls_failed'; detail: string }
  | { kind: 'tls'; protocol: string | null; certificate: CertificateFacts };

/**
 * The SMTP connection budget every outbound connection Mailvet makes draws on, the probe's own:
 * buckets per destination address, per domain and per account, shared by every process in
 * scale-out. Asked before each dial; null when it may go ahead, else why it may not now.
 */
export interface ConnectionGate {
  take(ip: string, domain: string, accountId: string | undefined): Promise<string | null>;
}

/** Connects to port 25 of an MX host, says EHLO, asks for STARTTLS and reads the certificate. */
export interface MxTlsProbe {
  probe(request: TlsProbeRequest): Promise<TlsProbeOutcome>;
}

/** One policy fetch's outcome (RFC 8461 §3.3: HTTPS, a valid certificate, no redirects). */
export type PolicyFetchOutcome =
  | { kind: 'ok'; body: string; contentType: string | null }
  | {
      kind: 'failed';
      failure: 'dns' | 'refused_address' | 'connect' | 'tls' | 'http_status' | 'too_large' | 'timeout';
      detail: string;
    };

/** Fetches `https://mta-sts.<domain>/.well-known/mta-sts.txt` behind the address guard. */
export interface MtaStsPolicyFetcher {
  fetchPolicy(domain: string, timeoutMs: number, signal?: AbortSignal): Promise<PolicyFetchOutcome>;
}

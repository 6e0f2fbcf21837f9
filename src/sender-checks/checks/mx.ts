/**
 * MX: the domain has mail hosts; each has an address, answers on port 25 within a bounded dial,
 * offers STARTTLS with a certificate valid for its name, and each address's PTR name resolves back
 * to it (forward-confirmed reverse DNS). Addresses outside the public internet are not dialled
 * unless the operator allows it (the SSRF guard).
 */
import { probeRefusal } from '../../net/address-guard.ts';
import { type SenderFinding, senderFinding } from '../finding.ts';
import type { ConnectionGate, MxTlsProbe, SenderDns, TlsProbeOutcome } from '../ports.ts';
import type { SenderCheckSettings } from '../settings.ts';

/** One MX host and what was found at it. */
export interface MxHostFacts {
  host: string;
  priority: number;
  addresses: string[];
}

/**
 * How MX hosts are dialled: the STARTTLS probe, behind the connection budget (when given) that the
 * verification probe's connections draw on too, on behalf of `accountId`.
 */
export interface MxDial {
  probe: MxTlsProbe;
  gate?: ConnectionGate;
  accountId?: string;
}

/** The MX findings and the hosts (MTA-STS and the blocklists use them). */
export async function checkMx(
  dns: SenderDns,
  dial: MxDial,
  settings: SenderCheckSettings,
  domain: string,
  signal?: AbortSignal,
): Promise<{ findings: SenderFinding[]; hosts: MxHostFacts[] }> {
  const answer = await dns.resolveMx(domain);
  if (answer.kind === 'error') {
    return {
      findings: [
        senderFinding(
          'mx',
          'mx_lookup_failed',
          'warn',
          `The MX records of ${domain} could not be looked up (${answer.failure}).`,
          'Check that the DNS servers of the domain answer; run the check again later.',
        ),
      ],
      hosts: [],
    };
  }
  const records = answer.kind === 'ok' ? answer.records : [];
  if (records.length === 1 && records[0]!.exchange === '') {
    return {
      findings: [
        senderFinding(
          'mx',
          'mx_null',
          'warn',
          `${domain} publishes a null MX (RFC 7505): it receives no mail, so replies and bounces to its senders are lost, and some receivers refuse mail from such domains.`,
          `If ${domain} sends mail, publish MX records for the hosts that receive its replies and bounces.`,
        ),
      ],
      hosts: [],
    };
  }
  if (records.length === 0) {
    return {
      findings: [
        senderFinding(
          'mx',
          'mx_missing',
          'fail',
          `${domain} has no MX record: replies and bounces to its mail have nowhere to go, and receivers count that against it.`,
          `Publish MX records for the hosts that receive ${domain}'s mail (your mail provider gives them).`,
        ),
      ],
      hosts: [],
    };
  }
  const sorted = [...records].sort((a, b) => a.priority - b.priority).slice(0, settings.maxMxHosts);
  const hosts = await Promise.all(
    sorted.map(async (record) => ({
      host: record.exchange.toLowerCase().replace(/\.$/, ''),
      priority: record.priority,
      addresses: await addressesOf(dns, record.exchange),
    })),
  );
  const perHost = await Promise.all(
    hosts.map((host) => hostFindings(dns, dial, settings, domain, host, signal)),
  );
  const findings = perHost.flat();
  // Every host seen, and none at fault: a host not dialled (the budget) was not seen.
  const allSeen = !findings.some((item) => item.code === 'mx_not_dialled');
  if (allSeen && !findings.some((item) => item.status === 'fail' || item.status === 'warn')) {
    findings.unshift(
      senderFinding(
        'mx',
        'mx_ok',
        'pass',
        `${domain} has ${hosts.length} MX host${hosts.length === 1 ? '' : 's'} (${hosts.map((h) => h.host).join(', ')}); each answers, offers STARTTLS with a valid certificate, and has matching reverse DNS.`,
        null,
        { hosts },
      ),
    );
  }
  return { findings, hosts };
}

async function addressesOf(dns: SenderDns, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([dns.resolveA(host), dns.resolveAaaa(host)]);
  return [v4, v6].flatMap((answer) => (answer.kind === 'ok' ? answer.records : []));
}

async function hostFindings(
  dns: SenderDns,
  dial: MxDial,
  settings: SenderCheckSettings,
  domain: string,
  mx: MxHostFacts,
  signal?: AbortSignal,
): Promise<SenderFinding[]> {
  const { host } = mx;
  if (mx.addresses.length === 0) {
    return [
      senderFinding(
        'mx',
        'mx_no_address',
        'fail',
        `The MX host ${host} has no address (no A or AAAA record): mail to it cannot be delivered.`,
        `Give ${host} an A record, or point the MX record at a host that has one.`,
        { host },
      ),
    ];
  }
  const addresses = mx.addresses.slice(0, settings.addressesPerHost);
  const findings: SenderFinding[] = [];
  for (const ip of addresses) {
    const refusal = probeRefusal(ip);
    if (refusal !== null && !settings.allowPrivate) {
      findings.push(
        senderFinding(
          'mx',
          'mx_private_address',
          'fail',
          `The MX host ${host} points at ${ip}, an address outside the public internet (${refusal}): nobody else can deliver to it.`,
          `Point ${host}'s A/AAAA records at the public address of the mail server.`,
          { host, ip, refusal },
        ),
      );
      continue;
    }
    // The same budget as the verification probe's: a check per new subdomain must not turn into
    // a stream of connections to one mail server.
    const held = (await dial.gate?.take(ip, domain, dial.accountId)) ?? null;
    if (held !== null) {
      findings.push(notDialled(host, ip, held), ...ptrFindings(host, ip, await reverseDns(dns, ip)));
      continue;
    }
    const [outcome, ptr] = await Promise.all([
      dial.probe.probe({
        host,
        ip,
        port: settings.smtpPort,
        helo: settings.helo,
        timeoutMs: settings.dialTimeoutMs,
        signal,
      }),
      reverseDns(dns, ip),
    ]);
    findings.push(...tlsFindings(host, ip, outcome));
    findings.push(...ptrFindings(host, ip, ptr));
  }
  return findings;
}

function tlsFindings(host: string, ip: string, outcome: TlsProbeOutcome): SenderFinding[] {
  const details = { host, ip, outcome };
  switch (outcome.kind) {
    case 'unreachable':
      return [
        senderFinding(
          'mx',
          'mx_unreachable',
          'fail',
          `The MX host ${host} (${ip}) did not answer on port 25: ${outcome.detail}.`,
          `Make sure the mail server at ${ip} runs and that port 25 is open to the internet (firewall, security group).`,
          details,
        ),
      ];
    case 'refused_greeting':
      return [
        senderFinding(
          'mx',
          'mx_unreachable',
          'fail',
          `The MX host ${host} (${ip}) refused the connection: "${outcome.code} ${outcome.text}".`,
          `Check the mail server's connection limits and blocklists: it must greet any sender with 220.`,
          details,
        ),
      ];
    case 'no_starttls':
      return [
        senderFinding(
          'mx',
          'mx_no_starttls',
          'fail',
          `The MX host ${host} (${ip}) does not offer STARTTLS: mail to ${host} travels unencrypted, and Gmail marks it so.`,
          `Turn on STARTTLS in the mail server of ${host} with a certificate for "${host}" (Postfix: smtpd_tls_security_level = may with smtpd_tls_cert_file/smtpd_tls_key_file; Let's Encrypt issues one for free).`,
          details,
        ),
      ];
    case 'tls_failed':
      return [
        senderFinding(
          'mx',
          'mx_tls_failed',
          'fail',
          `The MX host ${host} (${ip}) offers STARTTLS but the TLS handshake failed: ${outcome.detail}.`,
          `Check the TLS settings of the mail server of ${host}: a readable certificate and key, TLS 1.2 or newer.`,
          details,
        ),
      ];
    case 'tls': {
      const cert = outcome.certificate;
      if (!cert.nameMatches || !cert.trusted) {
        const why = [
          ...(cert.trusted ? [] : [`it is not trusted (${describeTrust(cert.trustProblem)})`]),
          ...(cert.nameMatches
            ? []
            : [
                `it is not valid for the name ${host} (it names ${cert.altNames.length > 0 ? cert.altNames.join(', ') : (cert.subject ?? 'nothing')})`,
              ]),
        ];
        return [
          senderFinding(
            'mx',
            'mx_certificate_invalid',
            'warn',
            `The certificate of the MX host ${host} (${ip}): ${why.join('; ')}. Senders that check certificates (MTA-STS, DANE) will not deliver.`,
            `Install a certificate for "${host}" from a public CA (Let's Encrypt, your provider's) in the mail server, with its intermediate chain.`,
            details,
          ),
        ];
      }
      return [];
    }
  }
}

function describeTrust(problem: string | null): string {
  switch (problem) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'self-signed';
    case 'CERT_HAS_EXPIRED':
      return 'expired';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'issued by an unknown authority, or the chain is incomplete';
    default:
      return problem ?? 'unknown reason';
  }
}

type ReverseDns = { names: string[]; confirmed: string | null; failed: boolean };

async function reverseDns(dns: SenderDns, ip: string): Promise<ReverseDns> {
  const answer = await dns.resolvePtr(ip);
  if (answer.kind === 'error') return { names: [], confirmed: null, failed: true };
  const names = answer.kind === 'ok' ? answer.records.map((name) => name.toLowerCase()) : [];
  for (const name of names.slice(0, 5)) {
    if ((await addressesOf(dns, name)).includes(ip)) return { names, confirmed: name, failed: false };
  }
  return { names, confirmed: null, failed: false };
}

function ptrFindings(host: string, ip: string, ptr: ReverseDns): SenderFinding[] {
  const details = { host, ip, ptr: ptr.names, confirmed: ptr.confirmed };
  if (ptr.failed || ptr.confirmed !== null) return [];
  if (ptr.names.length === 0) {
    return [
      senderFinding(
        'mx',
        'mx_ptr_missing',
        'warn',
        `${ip} (the MX host ${host}) has no reverse DNS (PTR) name: receivers distrust mail servers without one.`,
        `Ask whoever owns ${ip} (your hosting provider) to set its PTR record to ${host}.`,
        details,
      ),
    ];
  }
  return [
    senderFinding(
      'mx',
      'mx_ptr_mismatch',
      'warn',
      `The reverse DNS of ${ip} names ${ptr.names.join(', ')}, which does not resolve back to ${ip} (the MX host ${host}): forward-confirmed reverse DNS fails.`,
      `Set the PTR of ${ip} to ${host} (your hosting provider does it), and make sure ${host} has an A/AAAA record for ${ip}.`,
      details,
    ),
  ];
}

/** A dial the connection budget held back: the host is not judged now (the report is incomplete). */
function notDialled(host: string, ip: string, held: string): SenderFinding {
  return senderFinding(
    'mx',
    'mx_not_dialled',
    'info',
    `The MX host ${host} (${ip}) was not dialled this time: Mailvet's own limit on connections to one mail server, domain or account was reached (${held}). Its port 25 and STARTTLS are not judged in this report.`,
    'Run the check again in a minute.',
    { host, ip, held },
  );
}

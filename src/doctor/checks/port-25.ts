/**
 * Port 25 egress: can this host open SMTP connections to real mail hosts? Many cloud and home
 * providers block outgoing port 25; then every probe times out and nothing can be verified.
 * Each configured host is dialled at once (its first address), greeted, EHLO'd, and left.
 */

import { parseIp } from '../../mail-auth/spf/ip-address.ts';
import { type Finding, finding } from '../finding.ts';
import type { DialOutcome, DoctorDns, Port25Dialer } from '../ports.ts';
import { type DoctorSettings, type MxTarget, parseTargets } from '../settings.ts';

/** What one host's dial found, for the report's details. */
export interface HostDial {
  host: string;
  ip: string | null;
  port: number;
  outcome: DialOutcome | { kind: 'unresolved'; detail: string };
}

/** The port-25 finding and every dial, which the egress check reads. */
export interface Port25Result {
  finding: Finding;
  dials: HostDial[];
}

const FIX_BLOCKED =
  'Outgoing port 25 looks blocked by your hosting provider or a firewall. Ask the provider to lift ' +
  'the block (many cloud providers do on request), open TCP 25 outbound in the firewall, or send the ' +
  'probe through a host that may (MAILVET_SMTP_PROXY).';

/** Dials every configured mail host on port 25 (or its own port). */
export async function checkPort25(
  dns: DoctorDns,
  dialer: Port25Dialer,
  settings: DoctorSettings,
  signal: AbortSignal,
): Promise<Port25Result> {
  const { targets, bad } = parseTargets(settings.mxHosts, settings.defaultPort);
  if (targets.length === 0) {
    return {
      finding: finding(
        'port_25',
        'skipped',
        bad.length > 0
          ? `No usable mail host to test (not host[:port]: ${bad.join(', ')}).`
          : 'No mail host to test.',
        { bad },
        'Set MAILVET_DOCTOR_MX_HOSTS to a few real MX hosts, such as gmail-smtp-in.l.google.com.',
      ),
      dials: [],
    };
  }
  const dials = await Promise.all(targets.map((target) => dialTarget(dns, dialer, settings, target, signal)));
  return { finding: judge(dials, bad), dials };
}

async function dialTarget(
  dns: DoctorDns,
  dialer: Port25Dialer,
  settings: DoctorSettings,
  target: MxTarget,
  signal: AbortSignal,
): Promise<HostDial> {
  let ip: string | null = parseIp(target.host) === null ? null : target.host;
  if (ip === null) {
    const answer = await dns.resolveA(target.host);
    if (answer.kind !== 'ok' || answer.records.length === 0) {
      const why = answer.kind === 'error' ? `lookup failed (${answer.failure})` : 'no IPv4 address';
      return {
        host: target.label,
        ip: null,
        port: target.port,
        outcome: { kind: 'unresolved', detail: why },
      };
    }
    ip = answer.records[0]!;
  }
  const outcome = await dialer.dial({
    ip,
    port: target.port,
    helo: settings.helo,
    connectTimeoutMs: settings.connectTimeoutMs,
    commandTimeoutMs: settings.commandTimeoutMs,
    signal,
  });
  return { host: target.label, ip, port: target.port, outcome };
}

function judge(dials: HostDial[], bad: string[]): Finding {
  const greeted = dials.filter((dial) => dial.outcome.kind === 'greeted');
  const details = { hosts: dials.map(describeDial), ...(bad.length > 0 && { bad }) };
  if (greeted.length === 0) {
    const resolvedNone = dials.every((dial) => dial.outcome.kind === 'unresolved');
    if (resolvedNone) {
      return finding(
        'port_25',
        'warn',
        'None of the test mail hosts could be looked up, so port 25 was not tried.',
        details,
        'Check the resolver (see the resolver check) and MAILVET_DOCTOR_MX_HOSTS.',
      );
    }
    const timedOut = dials.some(
      (dial) => dial.outcome.kind === 'failed' && dial.outcome.failure === 'timeout',
    );
    return finding(
      'port_25',
      'fail',
      `No mail host could be reached on port 25 (${dials.map((dial) => `${dial.host}: ${shortOutcome(dial)}`).join('; ')}).` +
        (timedOut ? ' Connections that time out are the usual sign of a provider block.' : ''),
      details,
      FIX_BLOCKED,
    );
  }
  const refusing = greeted.filter(
    (dial) => dial.outcome.kind === 'greeted' && dial.outcome.banner.code >= 400,
  );
  if (refusing.length > 0) {
    const said = refusing.map((dial) => `${dial.host}: ${shortOutcome(dial)}`).join('; ');
    return finding(
      'port_25',
      'warn',
      `Port 25 is open, but ${refusing.length === greeted.length ? 'every' : 'some'} mail host refused us at the greeting (${said}).`,
      details,
      'A refusal at the greeting usually names a blocklist or a poor reputation: see the dnsbl and reverse_dns checks, and the refusal text.',
    );
  }
  if (greeted.length < dials.length) {
    const missed = dials.filter((dial) => dial.outcome.kind !== 'greeted');
    return finding(
      'port_25',
      'warn',
      `Port 25 works (${greeted.length} of ${dials.length} hosts answered), but ${missed.map((dial) => `${dial.host}: ${shortOutcome(dial)}`).join('; ')}.`,
      details,
      'One host failing may be its own trouble; if it persists, check the firewall for that destination.',
    );
  }
  return finding(
    'port_25',
    'pass',
    `Port 25 is open: ${greeted.length} of ${dials.length} mail hosts greeted us.`,
    details,
  );
}

/** A dial in a few words. */
export function shortOutcome(dial: HostDial): string {
  const outcome = dial.outcome;
  switch (outcome.kind) {
    case 'unresolved':
      return `not looked up (${outcome.detail})`;
    case 'failed':
      return {
        refused: 'connection refused',
        timeout: 'timed out',
        unreachable: 'network unreachable',
        no_banner: 'connected but no greeting came',
        error: 'connection failed',
      }[outcome.failure];
    case 'greeted':
      return `${outcome.banner.code} ${firstLine(outcome.banner.text)}`.trim();
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 160);
}

function describeDial(dial: HostDial): Record<string, unknown> {
  const outcome = dial.outcome;
  const base = { host: dial.host, ip: dial.ip, port: dial.port };
  if (outcome.kind === 'greeted') {
    return {
      ...base,
      reachable: true,
      banner: `${outcome.banner.code} ${firstLine(outcome.banner.text)}`,
      ehlo: outcome.ehlo === null ? null : `${outcome.ehlo.code} ${firstLine(outcome.ehlo.text)}`,
    };
  }
  return { ...base, reachable: false, problem: shortOutcome(dial), detail: outcome.detail };
}

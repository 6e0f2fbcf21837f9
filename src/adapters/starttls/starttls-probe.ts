/**
 * The sender checks' STARTTLS probe over `node:net` and `node:tls`: connect to an MX address, read
 * the greeting, EHLO, STARTTLS, handshake without refusing a bad certificate (it is what we came to
 * read), judge the certificate for the MX name, QUIT. The whole conversation is under one bound;
 * failures are values. It never sends MAIL or RCPT.
 */
import net from 'node:net';
import tls from 'node:tls';
import type {
  CertificateFacts,
  MxTlsProbe,
  TlsProbeOutcome,
  TlsProbeRequest,
} from '../../sender-checks/ports.ts';

// A hostile or broken server must not make us hold a big buffer.
const MAX_BUFFER = 16_384;

export interface StarttlsProbeOptions {
  /** Extra trusted CA certificates (PEM), besides Node's (tests; NODE_EXTRA_CA_CERTS does it for processes). */
  extraCa?: string | Buffer;
}

interface Reply {
  code: number;
  lines: string[];
}

/** Probes MX hosts for STARTTLS and their certificates. */
export class StarttlsProbe implements MxTlsProbe {
  readonly #ca: Array<string | Buffer> | undefined;

  constructor(options: StarttlsProbeOptions = {}) {
    this.#ca = options.extraCa === undefined ? undefined : [...tls.rootCertificates, options.extraCa];
  }

  /** Talks to `request.ip:port` until the certificate is read. */
  probe(request: TlsProbeRequest): Promise<TlsProbeOutcome> {
    return new Promise((resolve) => {
      const socket = net.connect({ host: request.ip, port: request.port });
      let secure: tls.TLSSocket | undefined;
      let settled = false;
      let buffer = '';
      let lines: string[] = [];
      let waiter: ((reply: Reply | null) => void) | null = null;
      const finish = (outcome: TlsProbeOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        if (secure !== undefined && !secure.destroyed) secure.end('QUIT\r\n');
        secure?.destroy();
        socket.destroy();
        resolve(outcome);
      };
      const onAbort = () => finish({ kind: 'unreachable', detail: 'the check ran out of time' });
      const timer = setTimeout(
        () => finish({ kind: 'unreachable', detail: `no complete answer within ${request.timeoutMs} ms` }),
        request.timeoutMs,
      );
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if (request.signal?.aborted) return onAbort();
      const onData = (chunk: string) => {
        buffer += chunk;
        if (buffer.length > MAX_BUFFER)
          return finish({ kind: 'tls_failed', detail: 'the server sent an over-long reply' });
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const part of parts) {
          const line = part.replace(/\r$/, '');
          lines.push(line);
          if (!/^\d{3}-/.test(line)) {
            const reply = { code: Number(line.slice(0, 3)) || 0, lines };
            lines = [];
            const wake = waiter;
            waiter = null;
            wake?.(reply);
          }
        }
      };
      socket.setEncoding('latin1');
      socket.on('data', onData);
      socket.on('close', () => {
        const wake = waiter;
        waiter = null;
        wake?.(null);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        const wake = waiter;
        waiter = null;
        if (wake !== null) return wake(null);
        finish({ kind: 'unreachable', detail: `${error.code ?? 'error'}: ${error.message}` });
      });
      const nextReply = () =>
        new Promise<Reply | null>((wake) => {
          waiter = wake;
        });
      socket.once('connect', async () => {
        const banner = await nextReply();
        if (banner === null)
          return finish({ kind: 'unreachable', detail: 'connected, but no greeting came' });
        if (banner.code !== 220)
          return finish({
            kind: 'refused_greeting',
            code: banner.code,
            text: banner.lines.join(' ').slice(4, 300),
          });
        socket.write(`EHLO ${request.helo}\r\n`);
        const ehlo = await nextReply();
        if (ehlo === null || ehlo.code !== 250)
          return finish({ kind: 'unreachable', detail: 'the server did not accept EHLO' });
        const keywords = ehlo.lines
          .slice(1)
          .map((line) => line.slice(4).trim().split(/\s+/)[0]!.toUpperCase());
        if (!keywords.includes('STARTTLS')) return finish({ kind: 'no_starttls', ehloKeywords: keywords });
        socket.write('STARTTLS\r\n');
        const ready = await nextReply();
        if (ready === null || ready.code !== 220)
          return finish({
            kind: 'tls_failed',
            detail: `STARTTLS was answered ${ready?.code ?? 'with nothing'}`,
          });
        socket.removeListener('data', onData);
        this.#handshake(socket, request, finish, (socketOf) => {
          secure = socketOf;
        });
      });
    });
  }

  #handshake(
    socket: net.Socket,
    request: TlsProbeRequest,
    finish: (outcome: TlsProbeOutcome) => void,
    keep: (secure: tls.TLSSocket) => void,
  ): void {
    const servername = net.isIP(request.host) === 0 ? request.host : undefined;
    const secure = tls.connect({
      socket,
      ...(servername !== undefined && { servername }),
      // Read, then judge: a bad certificate is a finding, not a reason to hang up unseen.
      rejectUnauthorized: false,
      ...(this.#ca !== undefined && { ca: this.#ca }),
      minVersion: 'TLSv1',
    });
    keep(secure);
    secure.once('secureConnect', () => {
      const peer = secure.getPeerCertificate(false);
      finish({
        kind: 'tls',
        protocol: secure.getProtocol(),
        certificate: certificateFacts(request.host, secure, peer),
      });
    });
    secure.once('error', (error: NodeJS.ErrnoException) =>
      finish({ kind: 'tls_failed', detail: `${error.code ?? 'error'}: ${error.message}` }),
    );
  }
}

function certificateFacts(host: string, secure: tls.TLSSocket, peer: tls.PeerCertificate): CertificateFacts {
  const hasCertificate = peer !== null && Object.keys(peer).length > 0;
  const altNames = hasCertificate
    ? (peer.subjectaltname ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry.startsWith('DNS:'))
        .map((entry) => entry.slice(4))
    : [];
  const authorizationError = secure.authorizationError as unknown as string | Error | null;
  const trustProblem =
    authorizationError === null || authorizationError === undefined
      ? null
      : typeof authorizationError === 'string'
        ? authorizationError
        : ((authorizationError as NodeJS.ErrnoException).code ?? authorizationError.message);
  // Node folds a name mismatch into `authorized`; the chain itself was fine then.
  const chainOk = secure.authorized || trustProblem === 'ERR_TLS_CERT_ALTNAME_INVALID';
  return {
    trusted: hasCertificate && chainOk,
    trustProblem: !hasCertificate ? 'no certificate' : chainOk ? null : trustProblem,
    nameMatches: hasCertificate && tls.checkServerIdentity(host, peer) === undefined,
    subject: hasCertificate ? commonName(peer.subject?.CN) : null,
    issuer: hasCertificate ? commonName(peer.issuer?.CN) : null,
    altNames,
    validTo: hasCertificate ? peer.valid_to : null,
  };
}

/** A certificate's CN (several make one, comma-separated). */
function commonName(cn: string | string[] | undefined): string | null {
  if (cn === undefined) return null;
  return Array.isArray(cn) ? cn.join(', ') : cn;
}

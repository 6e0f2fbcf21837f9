/**
 * Asks one open session about a domain's waiting probes: transactions of up to
 * `maxRecipientsPerTransaction` RCPTs (`maxRecipientsPipelined` when the server pipelines, each
 * transaction then one round trip), the random catch-all address first when the domain's verdict
 * is not known, until the queue is empty, the deadline passes or the connection breaks. A session
 * of a list's probes waits `sessionLingerMs` for the list's next ones before it counts the queue
 * empty: a list's next batch at the domain is usually a database round trip away, and a session
 * closed and opened again costs the server a greeting and EHLO (on PostgreSQL, four connections a
 * domain instead of one). It holds its host slot and the account's share meanwhile, for that long
 * at most.
 */
import {
  catchAllProbeLocalPart,
  catchAllProbeOutcome,
  combineWithCatchAll,
} from '../../verification/checks/smtp/catch-all.ts';
import type { RcptVerdict } from '../../verification/checks/smtp/reply.ts';
import type { CatchAllProbe, SmtpCheck, SmtpUnknownReason } from '../../verification/report.ts';
import type { CatchAllMemory } from './catch-all-memory.ts';
import type { DomainQueue, Waiting } from './domain-queue.ts';
import type { RcptOutcome, SmtpSession } from './smtp-session.ts';

export interface DrainOptions {
  /** RCPTs per transaction sent one at a time (a 452 "too many recipients" lowers it). */
  maxRecipientsPerTransaction: number;
  /** RCPTs per pipelined transaction, the random address included (a 452 lowers it too). */
  maxRecipientsPipelined: number;
  /** When a greylisting server gives no delay. */
  greylistRetrySeconds: number;
  /** How long a session with nothing to ask waits for more before it quits (0: it quits at once). */
  sessionLingerMs: number;
  random: () => number;
}

/** One session at work for a domain's queue. */
export interface DrainTarget {
  domain: string;
  queue: DomainQueue;
  session: SmtpSession;
  mxHost: string;
  /** The address the session is connected to. */
  mxAddress: string;
  deadlineMs: number;
  /** Aborted once nobody waits: probes queued after that wait for a fresh worker. */
  signal: AbortSignal;
}

/** Answers the queue's probes over `target.session`; returns when the session should end. */
export async function drainQueue(
  target: DrainTarget,
  catchAll: CatchAllMemory,
  options: DrainOptions,
): Promise<void> {
  const { domain, queue, session } = target;
  // The random address asked in this session, for the evidence of every address it answers for.
  let askedHere: CatchAllProbe | null = null;
  // Pipelined, a transaction costs one round trip whatever its size, so it takes all it may.
  let recipientLimit = session.pipelining
    ? options.maxRecipientsPipelined
    : options.maxRecipientsPerTransaction;
  let moreToCome = false;
  // Past the deadline the session ends; whoever still waits gets a fresh worker and session.
  while (Date.now() < target.deadlineMs && !target.signal.aborted) {
    if (queue.waiting.length === 0) {
      // Only a list's session waits: a request's probes all came at once.
      if (!moreToCome) return;
      const lingerMs = Math.min(options.sessionLingerMs, target.deadlineMs - Date.now());
      if (!(await queue.arrival(lingerMs, target.signal))) return;
      // Probes queued together arrive in one turn: take them as one transaction.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const probeCatchAll = (await catchAll.lookup(domain)) === undefined;
    // Sessions opened together split the queue evenly; one that is free first takes what is left.
    const room = Math.max(1, recipientLimit - (probeCatchAll ? 1 : 0));
    const batch = queue.waiting.splice(0, Math.min(queue.share, room));
    if (batch.length === 0) return;
    moreToCome = batch.some((waiting) => waiting.request.moreToCome === true);
    const internationalized = batch.some((w) => w.request.internationalized);
    const randomAddress = `${catchAllProbeLocalPart(options.random)}@${domain}`;
    const addresses = batch.map((w) => `${w.request.localPart}@${w.request.asciiDomain}`);
    queue.asking += 1;
    const answer = await session
      .transaction(probeCatchAll ? [randomAddress, ...addresses] : addresses, internationalized)
      .finally(() => {
        queue.asking -= 1;
      });
    if ('refused' in answer) {
      // The server refuses our envelope: nothing about these mailboxes can be learnt here.
      const { refused } = answer;
      const others = target.signal.aborted ? [] : queue.waiting.splice(0);
      for (const waiting of [...batch, ...others])
        waiting.resolve(unknownCheck(refused.reason, refused.reply, target));
      return;
    }
    const { outcomes } = answer;
    // The RCPTs before the first 452 "too many recipients" are what this server takes at once.
    const taken = outcomes.findIndex((o) => o.verdict.kind === 'too_many_recipients');
    if (taken > 0) recipientLimit = Math.min(recipientLimit, taken);
    const randomOutcome = probeCatchAll ? outcomes.shift()! : null;
    if (randomOutcome !== null) {
      catchAll.remember(domain, randomOutcome.verdict);
      askedHere = {
        ran: true,
        outcome: catchAllProbeOutcome(randomOutcome.verdict),
        reply: randomOutcome.reply,
      };
    }
    const randomVerdict = randomOutcome?.verdict ?? catchAll.randomVerdict(domain);
    const probe = askedHere ?? rememberedProbe(randomVerdict);

    const retry: Waiting[] = [];
    batch.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if (outcome.verdict.kind === 'too_many_recipients') retry.push(waiting);
      else waiting.resolve(checkOf(outcome, randomVerdict, probe, target, options));
    });
    if (retry.length === batch.length && randomOutcome?.verdict.kind !== 'too_many_recipients') {
      // Not even one recipient fits a transaction: the server's limit is not usable.
      for (const waiting of retry)
        waiting.resolve(unknownCheck('protocol_error', outcomes[0]?.reply ?? null, target));
    } else {
      queue.waiting.unshift(...retry);
    }
    if (outcomes.some((o) => o.verdict.kind === 'unknown' && o.reply === null)) {
      // The connection broke: what is left waits for a fresh session.
      return;
    }
  }
}

/**
 * An inconclusive check: the probe learnt nothing about the mailbox. `at` names the MX host and
 * address that said so, when one was reached or tried.
 */
export function unknownCheck(
  reason: SmtpUnknownReason,
  reply: SmtpCheck['reply'],
  at: { mxHost?: string; mxAddress?: string } = {},
): SmtpCheck {
  return {
    verdict: 'unknown',
    catchAll: null,
    unknownReason: reason,
    reply,
    mxHost: at.mxHost ?? null,
    mxAddress: at.mxAddress ?? null,
    catchAllProbe: null,
    retryAfterSeconds: null,
    tls: null,
  };
}

/** The catch-all probe as remembered from an earlier session (its reply is not kept). */
function rememberedProbe(randomVerdict: RcptVerdict | null): CatchAllProbe {
  if (randomVerdict === null) return { ran: false, outcome: null, reply: null };
  return { ran: false, outcome: catchAllProbeOutcome(randomVerdict), reply: null };
}

function checkOf(
  outcome: RcptOutcome,
  randomVerdict: RcptVerdict | null,
  probe: CatchAllProbe,
  target: DrainTarget,
  options: DrainOptions,
): SmtpCheck {
  const combined = combineWithCatchAll(outcome.verdict, randomVerdict);
  return {
    verdict: combined.verdict,
    catchAll: combined.catchAll,
    unknownReason: combined.unknownReason,
    reply: outcome.reply,
    mxHost: target.mxHost,
    mxAddress: target.mxAddress,
    catchAllProbe: probe,
    retryAfterSeconds: combined.unknownReason === 'greylisted' ? retryAfter(outcome, options) : null,
    tls: { used: target.session.tls.used, verified: target.session.tls.authorized },
  };
}

function retryAfter(outcome: RcptOutcome, options: DrainOptions): number {
  const stated = outcome.reply?.text.match(/(\d{1,5})\s*(?:s\b|sec|second)/i);
  const seconds = stated ? Number(stated[1]) : options.greylistRetrySeconds;
  return Math.min(Math.max(seconds, 1), 86_400);
}

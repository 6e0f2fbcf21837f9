/**
 * What an SMTP host of the mail world saw: counters tests assert on (a probe's connection count,
 * that it never sent DATA, that it upgraded to TLS) and a transcript of every connection.
 */

/** Counters and transcripts of one host. Transcript lines are `C: ...`, `S: ...` or `* ...`. */
export interface SmtpHostStats {
  /** TCP connections accepted (counted at accept, before any banner). */
  connections: number;
  mailCommands: number;
  rcptCommands: number;
  rsetCommands: number;
  dataCommands: number;
  /** Completed STARTTLS handshakes. */
  starttls: number;
  /** One array per connection that exchanged a line, in order of its first line. */
  transcripts: string[][];
}

/** Empty counters. */
export function emptyStats(): SmtpHostStats {
  return {
    connections: 0,
    mailCommands: 0,
    rcptCommands: 0,
    rsetCommands: 0,
    dataCommands: 0,
    starttls: 0,
    transcripts: [],
  };
}

/** Zeroes `stats` in place, so references tests hold stay live. */
export function resetStats(stats: SmtpHostStats): void {
  Object.assign(stats, emptyStats());
}

/** Counts one client command line by its verb. */
export function countCommand(stats: SmtpHostStats, line: string): void {
  const verb = line.trimStart().split(' ', 1)[0]?.toUpperCase();
  if (verb === 'MAIL') stats.mailCommands++;
  else if (verb === 'RCPT') stats.rcptCommands++;
  else if (verb === 'RSET') stats.rsetCommands++;
  else if (verb === 'DATA') stats.dataCommands++;
}

/** Appends lines to one connection's transcript. */
export type TranscriptWriter = (line: string) => void;

/**
 * The transcript writer of one connection. The transcript is opened at its first line, and a new
 * one is opened if the stats were reset meanwhile, so a reset never leaves lines in limbo.
 */
export function transcriptWriter(stats: SmtpHostStats): TranscriptWriter {
  let transcript: string[] | null = null;
  let owner: string[][] | null = null;
  return (line) => {
    if (transcript === null || owner !== stats.transcripts) {
      transcript = [];
      owner = stats.transcripts;
      owner.push(transcript);
    }
    transcript.push(line);
  };
}

/** Appends a (possibly multi-line) server reply to a transcript. */
export function recordReply(write: TranscriptWriter, payload: string): void {
  for (const line of payload.split('\r\n')) write(`S: ${line}`);
}

/**
 * A banner on every signed-in page while the server's DNS resolver fails its control queries
 * (`/readyz` says `dns: degraded`): every verdict then ends in dns_error or rests on answers that
 * cannot be trusted, and the person should hear that before reading one. Asked on load and once a
 * minute (not while the tab is hidden: a hidden tab asks again when it is shown). The live region
 * is always there, so the banner's appearing is announced.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';

const EVERY_MS = 60_000;

/** The resolver's line of /readyz: `degraded`, `ok`, or null when it is not known (yet). */
async function resolverState(): Promise<string | null> {
  try {
    // A 503 (the store not answering) carries the checks too.
    const { data, error } = await api.GET('/readyz');
    return (data ?? error)?.checks?.dns ?? null;
  } catch {
    return null;
  }
}

export function ResolverBanner() {
  const [degraded, setDegraded] = useState(false);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastAsked = 0;
    const ask = async () => {
      clearTimeout(timer);
      lastAsked = Date.now();
      const state = await resolverState();
      if (stopped) return;
      // Not known (the server unreachable): the last answer stands.
      if (state !== null) setDegraded(state === 'degraded');
      timer = setTimeout(tick, EVERY_MS);
    };
    const tick = () => {
      if (!document.hidden) void ask();
    };
    const onVisible = () => {
      if (!document.hidden && Date.now() - lastAsked >= EVERY_MS) void ask();
    };
    void ask();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);

  return (
    <div role="status" className={degraded ? 'alert alert-warn banner resolver-banner' : undefined}>
      {degraded && (
        <>
          <p>
            <strong>Verdicts are unreliable right now:</strong> this server’s DNS resolver does not answer for
            names that must exist, so lookups fail (results say <code>dns_error</code> and are not charged)
            and no mailbox can be checked.
          </p>
          <p>
            To fix it on the server, run <code>mailvet doctor</code>, and set <code>MAILVET_DNS_SERVERS</code>{' '}
            to a resolver that reaches the internet.
          </p>
        </>
      )}
    </div>
  );
}

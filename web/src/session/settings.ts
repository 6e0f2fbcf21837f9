/**
 * What the signed-out pages may offer (`GET /api/v1/session/settings`): the "Forgot password?"
 * link shows only on a server that emails reset links. Asked once per page load; until the answer
 * (or when the server does not give one) the link stays hidden rather than lead to a 404.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { SuccessBody } from '../api/types';

export type SessionSettings = SuccessBody<'/api/v1/session/settings', 'get'>;

let asked: Promise<SessionSettings | null> | undefined;

function askOnce(): Promise<SessionSettings | null> {
  asked ??= api
    .GET('/api/v1/session/settings')
    .then(({ data }) => data ?? null)
    .catch(() => null);
  return asked;
}

/** The server's settings, null until known. */
export function useSessionSettings(): SessionSettings | null {
  const [settings, setSettings] = useState<SessionSettings | null>(null);
  useEffect(() => {
    let current = true;
    void askOnce().then((answer) => {
      if (current) setSettings(answer);
    });
    return () => {
      current = false;
    };
  }, []);
  return settings;
}

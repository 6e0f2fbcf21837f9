/**
 * The token of an emailed link (`?token=…`), read once and then taken out of the address bar, so
 * it is neither kept in the history nor sent along as a Referer.
 */
import { useState } from 'react';

export function useLinkToken(): string | null {
  const [token] = useState(() => {
    const found = new URLSearchParams(window.location.search).get('token');
    if (found !== null) window.history.replaceState(window.history.state, '', window.location.pathname);
    return found;
  });
  return token;
}

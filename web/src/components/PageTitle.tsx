/** The page's one h1, which also names the browser tab; focus lands on it after navigation (Layout). */
import { useEffect } from 'react';

export function PageTitle({ children }: { children: string }) {
  useEffect(() => {
    document.title = `${children} · Mailvet`;
  }, [children]);
  return <h1 tabIndex={-1}>{children}</h1>;
}

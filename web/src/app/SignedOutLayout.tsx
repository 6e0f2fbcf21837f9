/** The frame of the signed-out screens: the name of the service and one main region. */
import type { ReactNode } from 'react';

export function SignedOutLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <header className="site-header">
        <span className="brand">Mailvet</span>
      </header>
      <main id="main" className="narrow">
        {children}
      </main>
    </>
  );
}

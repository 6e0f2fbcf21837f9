/**
 * The signed-in frame: a skip link, the header with the navigation and "Sign out", the banners
 * (an address to confirm, the resolver), the main region, and a footer with the API reference. Other links never contain a
 * navigation link's name (tests and speech find links by it). After each navigation focus moves
 * to the new page's heading, so a screen reader announces the page and the next Tab starts inside it.
 */
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { useSession, useSignedIn } from '../session/session';
import { ConfirmBanner } from './ConfirmBanner';
import { ResolverBanner } from './ResolverBanner';

const NAVIGATION = [
  { to: '/', label: 'Overview' },
  { to: '/verify', label: 'Verify' },
  { to: '/lists', label: 'Lists' },
  { to: '/keys', label: 'API keys' },
  { to: '/integrations', label: 'Integrations' },
  { to: '/deliverability', label: 'Deliverability' },
  { to: '/account', label: 'Account' },
  { to: '/audit', label: 'Audit log' },
] as const;

export function Layout({ children }: { children: ReactNode }) {
  const session = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const firstPath = useRef(pathname);
  const [signOutError, setSignOutError] = useState<string | null>(null);

  useEffect(() => {
    if (pathname === firstPath.current) return;
    firstPath.current = '';
    mainRef.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [pathname]);

  const onSignOut = async () => {
    const problem = await signOut();
    if (problem === null) navigate('/', { replace: true });
    else setSignOutError(problem.message);
  };

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link to="/" className="brand">
          Mailvet
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAVIGATION.map(({ to, label }) => (
              <li key={to}>
                <NavLink to={to} end={to === '/'}>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span className="who-name">
            {session.user.email}
            {session.account.name !== session.user.email && (
              <span className="muted"> · {session.account.name}</span>
            )}
          </span>
          <button type="button" className="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {signOutError !== null && (
        <div role="alert" className="alert alert-error banner">
          Signing out failed: {signOutError}
        </div>
      )}
      <ConfirmBanner />
      <ResolverBanner />
      <main id="main" ref={mainRef} tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        {/* Served by the API itself, outside the dashboard's routes: a full page load. */}
        <a href="/docs">API reference</a>
      </footer>
    </>
  );
}

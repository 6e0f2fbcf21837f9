/**
 * The first hour's checklist on the Overview: create a key, verify an address, clean a list,
 * connect a platform. Each step ticks itself from what the API already says (a key exists, this
 * month counts a verification, a list exists, a platform is connected), so nothing is recorded for
 * it. Dismissing it is remembered in this browser's localStorage, per user: a preference this
 * small does not earn a column, a migration and a route on the server. Once dismissed, the page
 * asks for none of its data.
 */
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Account, ListPage } from '../api/types';

interface GettingStartedProps {
  userId: string;
  /** The Overview's own answers (null while loading or when they failed). */
  account: Account | null;
  lists: ListPage | null;
}

interface Step {
  title: string;
  detail: string;
  to: string;
  /** Never a navigation link's name (tests and speech find those by name). */
  link: string;
  done: boolean;
}

const DISMISSED_PREFIX = 'mailvet.getting-started.dismissed.';

function isDismissed(userId: string): boolean {
  try {
    return window.localStorage.getItem(DISMISSED_PREFIX + userId) === '1';
  } catch {
    // Storage refused (a private window's policy): the checklist shows, and can still be hidden now.
    return false;
  }
}

function remember(userId: string): void {
  try {
    window.localStorage.setItem(DISMISSED_PREFIX + userId, '1');
  } catch {
    // Not remembered across loads; hidden for now all the same.
  }
}

/** Whether the account has any key, and any connected platform; null until known. */
function useSetup(enabled: boolean) {
  const [setup, setSetup] = useState<{ key: boolean; platform: boolean } | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    void Promise.all([settle(api.GET('/api/v1/keys')), settle(api.GET('/api/v1/integrations'))]).then(
      ([keys, integrations]) => {
        // A step whose answer failed reads as not done: the checklist never claims what it cannot see.
        if (current)
          setSetup({
            key: keys.ok && keys.data.keys.length > 0,
            platform: integrations.ok && integrations.data.integrations.length > 0,
          });
      },
    );
    return () => {
      current = false;
    };
  }, [enabled]);
  return setup;
}

export function GettingStarted({ userId, account, lists }: GettingStartedProps) {
  const [dismissed, setDismissed] = useState(() => isDismissed(userId));
  const setup = useSetup(!dismissed);
  const sectionRef = useRef<HTMLElement>(null);

  if (dismissed || setup === null || account === null || lists === null) return null;

  const steps: Step[] = [
    {
      title: 'Create an API key',
      detail: 'Your site or app calls the API with it.',
      to: '/keys',
      link: 'Make a key',
      done: setup.key,
    },
    {
      title: 'Verify an address',
      detail: 'See what Mailvet learns about one address, and why.',
      to: '/verify',
      link: 'Try an address',
      done: account.usage.verifications > 0,
    },
    {
      title: 'Clean a list',
      detail: 'Upload a CSV or paste addresses, then download the rows worth keeping.',
      to: '/lists',
      link: 'Upload a list',
      done: lists.lists.length > 0,
    },
    {
      title: 'Connect a platform',
      detail: 'Verify a Mailchimp audience where it lives.',
      to: '/integrations',
      link: 'Connect Mailchimp',
      done: setup.platform,
    },
  ];
  const done = steps.filter((step) => step.done).length;

  const dismiss = () => {
    remember(userId);
    setDismissed(true);
    // The button goes away with the checklist: focus goes to the page's heading, not the void.
    sectionRef.current?.closest('main')?.querySelector<HTMLElement>('h1')?.focus();
  };

  return (
    <section ref={sectionRef} aria-labelledby="getting-started-heading" className="card getting-started">
      <h2 id="getting-started-heading">Getting started</h2>
      <p className="muted">
        {done} of {steps.length} done
      </p>
      <ol className="steps" aria-label="Steps">
        {steps.map((step) => (
          <li key={step.to} className={step.done ? 'step step-done' : 'step'}>
            <span className="step-mark" aria-hidden="true">
              {step.done ? '✔' : '○'}
            </span>
            <span>
              <strong>{step.title}</strong> <span className="step-state">{step.done ? 'Done' : 'To do'}</span>
              <br />
              <span className="muted">{step.detail}</span>{' '}
              {!step.done && <Link to={step.to}>{step.link}</Link>}
            </span>
          </li>
        ))}
      </ol>
      <button type="button" className="button" onClick={dismiss}>
        Dismiss the checklist
      </button>
    </section>
  );
}

/**
 * Overview: the first hour's checklist, the plan and this month's use, verifications per day, the
 * newest lists.
 */
import { type ReactNode, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Outcome, settle } from '../api/problem';
import type { Account, ListPage, Usage } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { DailyUsage } from '../overview/DailyUsage';
import { GettingStarted } from '../overview/GettingStarted';
import { RecentLists } from '../overview/RecentLists';
import { UsageThisMonth } from '../overview/UsageThisMonth';
import { useSignedIn } from '../session/session';

export function OverviewPage() {
  const session = useSignedIn();
  const [account, setAccount] = useState<Outcome<Account> | null>(null);
  const [usage, setUsage] = useState<Outcome<Usage> | null>(null);
  const [lists, setLists] = useState<Outcome<ListPage> | null>(null);

  useEffect(() => {
    let current = true;
    const keep =
      <T,>(set: (outcome: Outcome<T>) => void) =>
      (outcome: Outcome<T>) => {
        if (current) set(outcome);
      };
    void settle(api.GET('/api/v1/account')).then(keep(setAccount));
    void settle(api.GET('/api/v1/usage')).then(keep(setUsage));
    void settle(api.GET('/api/v1/lists', { params: { query: { limit: '5' } } })).then(keep(setLists));
    return () => {
      current = false;
    };
  }, []);

  return (
    <>
      <PageTitle>Overview</PageTitle>
      <GettingStarted
        userId={session.user.id}
        account={account?.ok ? account.data : null}
        lists={lists?.ok ? lists.data : null}
      />
      <div className="grid">
        <Part outcome={account} what="your plan and usage">
          {(data) => <UsageThisMonth account={data} />}
        </Part>
        <Part outcome={lists} what="your recent lists">
          {(data) => <RecentLists lists={data.lists} />}
        </Part>
      </div>
      <Part outcome={usage} what="daily usage">
        {(data) => <DailyUsage usage={data} />}
      </Part>
    </>
  );
}

/** One part of the page: loading, its content, or why it could not be loaded. */
function Part<T>({
  outcome,
  what,
  children,
}: {
  outcome: Outcome<T> | null;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (outcome === null) return <p className="muted">Loading {what}…</p>;
  if (!outcome.ok) {
    return (
      <div role="alert" className="alert alert-error">
        Could not load {what}: {outcome.problem.message}
      </div>
    );
  }
  return <>{children(outcome.data)}</>;
}

/**
 * Account: who is signed in, the plan and its limits, this month's use, how long results are kept
 * (with where data protection is described), and the password. An
 * operator (the session says so) also sees how plans change and the probe host's health; nobody
 * else's page asks for the latter, which the API would refuse.
 */
import { useEffect, useState } from 'react';
import { PasswordForm } from '../account/PasswordForm';
import { PlanHowTo } from '../account/PlanHowTo';
import { ProbeHealthPanel } from '../account/ProbeHealthPanel';
import { type Retention, RetentionForm } from '../account/RetentionForm';
import { api } from '../api/client';
import { type Outcome, settle } from '../api/problem';
import type { Account } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { formatCount, formatDay, formatInstant } from '../lib/format';
import { useSignedIn } from '../session/session';

export function AccountPage() {
  const session = useSignedIn();
  const [account, setAccount] = useState<Outcome<Account> | null>(null);

  useEffect(() => {
    let current = true;
    void settle(api.GET('/api/v1/account')).then((outcome) => {
      if (current) setAccount(outcome);
    });
    return () => {
      current = false;
    };
  }, []);

  return (
    <>
      <PageTitle>Account</PageTitle>
      <section aria-labelledby="who-heading" className="card">
        <h2 id="who-heading">You</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{session.user.email}</dd>
          <dt>Account</dt>
          <dd>{session.account.name}</dd>
          <dt>Member since</dt>
          <dd>{formatInstant(session.user.created_at)}</dd>
        </dl>
      </section>
      <section aria-labelledby="plan-heading" className="card">
        <h2 id="plan-heading">Plan and limits</h2>
        {account === null && <p className="muted">Loading your plan…</p>}
        {account !== null && !account.ok && (
          <div role="alert" className="alert alert-error">
            Could not load your plan: {account.problem.message}
          </div>
        )}
        {account?.ok && <PlanFacts account={account.data} />}
        {session.user.operator && <PlanHowTo accountId={session.account.id} />}
      </section>
      <section aria-labelledby="retention-heading" className="card">
        <h2 id="retention-heading">Data protection</h2>
        {account?.ok && (
          <RetentionForm
            retention={{ days: account.data.retention_days, setting: account.data.retention_days_setting }}
            planMax={account.data.limits.retention_days}
            onSaved={(retention: Retention) =>
              setAccount({
                ...account,
                data: {
                  ...account.data,
                  retention_days: retention.days,
                  retention_days_setting: retention.setting,
                },
              })
            }
          />
        )}
        <p className="muted">
          To erase one address from everything this account holds, or to export the account’s data, use{' '}
          <code>DELETE /api/v1/addresses/&#123;email&#125;</code> and <code>GET /api/v1/account/export</code>{' '}
          (<a href="/docs">API reference</a>). What is stored, where and for how long, and what a
          data-processing agreement should say: <a href="/docs/data-protection.md">Data protection</a>.
        </p>
      </section>
      <section aria-labelledby="password-heading" className="card">
        <h2 id="password-heading">Change password</h2>
        <PasswordForm email={session.user.email} />
      </section>
      {session.user.operator && <ProbeHealthPanel />}
    </>
  );
}

function PlanFacts({ account }: { account: Account }) {
  const { limits, usage } = account;
  return (
    <dl className="facts">
      <dt>Plan</dt>
      <dd className="plan">{account.plan}</dd>
      <dt>Verifications a month</dt>
      <dd>
        {formatCount(limits.monthly_verifications)} ({formatCount(usage.verifications)} used this month,{' '}
        {formatCount(usage.remaining)} left until {formatDay(usage.reset_at.slice(0, 10))})
      </dd>
      <dt>Bulk requests a month</dt>
      <dd>
        {formatCount(limits.monthly_bulk_requests)} ({formatCount(usage.bulk_requests)} used)
      </dd>
      <dt>Requests per second</dt>
      <dd>{formatCount(limits.rate_limit_per_second)}</dd>
      <dt>Lists worked on at once</dt>
      <dd>{formatCount(limits.max_running_lists)}</dd>
      <dt>Unfinished lists</dt>
      <dd>{formatCount(limits.max_unfinished_lists)}</dd>
      <dt>Rows kept across lists</dt>
      <dd>{formatCount(limits.max_stored_rows)}</dd>
      <dt>Longest retention of results</dt>
      <dd>{limits.retention_days === 0 ? 'No limit' : `${formatCount(limits.retention_days)} days`}</dd>
    </dl>
  );
}

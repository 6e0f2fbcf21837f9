/** The account's plan and what it used of its monthly quota (GET /api/v1/account). */
import type { Account } from '../api/types';
import { Gauge } from '../components/Gauge';
import { formatCount, formatDay } from '../lib/format';

export function UsageThisMonth({ account }: { account: Account }) {
  const { usage, limits } = account;
  const used = `${formatCount(usage.verifications)} of ${formatCount(limits.monthly_verifications)} verifications`;
  const bulk = `${formatCount(usage.bulk_requests)} of ${formatCount(limits.monthly_bulk_requests)} bulk requests`;
  return (
    <section aria-labelledby="usage-heading" className="card">
      <h2 id="usage-heading">This month</h2>
      <p>
        Plan <strong className="plan">{account.plan}</strong> · {formatCount(usage.remaining)} verifications
        left, renewed on {formatDay(usage.reset_at.slice(0, 10))}.
      </p>
      <div className="gauge-line">
        <span id="usage-verifications">Verifications: {used}</span>
        <Gauge
          kind="meter"
          label="Verifications this month"
          value={usage.verifications}
          max={limits.monthly_verifications}
          valueText={used}
        />
      </div>
      <div className="gauge-line">
        <span>Bulk requests: {bulk}</span>
        <Gauge
          kind="meter"
          label="Bulk requests this month"
          value={usage.bulk_requests}
          max={limits.monthly_bulk_requests}
          valueText={bulk}
        />
      </div>
    </section>
  );
}

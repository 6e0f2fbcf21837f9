/**
 * For operators only, under the plan: how plans change on a self-hosted server, where a sign-up
 * lands on the default plan and nothing in the dashboard changes it. The commands are written out
 * with this account's id, ready to copy.
 */
export function PlanHowTo({ accountId }: { accountId: string }) {
  return (
    <div className="plan-how-to">
      <h3>Changing plans (operators)</h3>
      <ul>
        <li>
          This account: <code>mailvet accounts update {accountId} --plan NAME</code> on the server.
        </li>
        <li>
          New sign-ups: set <code>MAILVET_DEFAULT_PLAN</code> to the plan they should start on.
        </li>
        <li>
          A plan’s figures (quotas, rate, lists): set <code>MAILVET_PLANS</code> to a plans file.
        </li>
      </ul>
    </div>
  );
}

/**
 * The account's keys: prefix, dates, caps and this month's use; edit limits, revoke with a
 * confirmation. On a phone each key is a block of labelled lines (styles.css `stacked-on-narrow`).
 */
import type { ApiKey } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatCount, formatInstant } from '../lib/format';

interface KeysTableProps {
  keys: readonly ApiKey[];
  onEdit: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => Promise<void>;
}

const cap = (value: number | null, unit: string) =>
  value === null ? 'Plan’s' : `${formatCount(value)} ${unit}`;

export function KeysTable({ keys, onEdit, onRevoke }: KeysTableProps) {
  return (
    <ScrollRegion label="API keys table">
      <table className="keys stacked-on-narrow">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Rate limit</th>
            <th scope="col">Monthly cap</th>
            <th scope="col">This month</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id} className={key.revoked_at === null ? undefined : 'revoked'}>
              <th scope="row" className="row-title">
                {key.name}
              </th>
              <td data-label="Prefix">
                <code>{key.prefix}…</code>
              </td>
              <td data-label="Created">{formatInstant(key.created_at)}</td>
              <td data-label="Last used">{formatInstant(key.last_used_at)}</td>
              <td data-label="Rate limit">{cap(key.rate_limit, '/ s')}</td>
              <td data-label="Monthly cap">{cap(key.monthly_cap, '/ month')}</td>
              <td className="number" data-label="This month">
                {formatCount(key.usage.verifications)}
              </td>
              <td>
                {key.revoked_at === null ? (
                  <div className="actions">
                    <button type="button" className="button" onClick={() => onEdit(key)}>
                      Edit limits
                    </button>
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke “${key.name}”? Requests with it will be refused.`}
                      confirmLabel="Yes, revoke"
                      onConfirm={() => onRevoke(key)}
                    />
                  </div>
                ) : (
                  <span className="muted">Revoked {formatInstant(key.revoked_at)}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/**
 * Audit entries, newest first: what happened, when, who, from where, what it was made to and what changed.
 * On a phone each entry is a block of labelled lines (styles.css `stacked-on-narrow`).
 */
import type { AuditEntry } from '../api/types';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatInstant } from '../lib/format';
import { ACTION_LABELS, actorText, detailLines } from './describe';

export function AuditTable({ entries }: { entries: readonly AuditEntry[] }) {
  return (
    <ScrollRegion label="Audit log table">
      <table className="audit-table stacked-on-narrow">
        <caption className="visually-hidden">Changes in the account, newest first</caption>
        <thead>
          <tr>
            <th scope="col">What happened</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <th scope="row" className="row-title">
                {ACTION_LABELS[entry.action] ?? entry.action}
              </th>
              <td data-label="When">
                <time dateTime={entry.at}>{formatInstant(entry.at)}</time>
              </td>
              <td data-label="Who">{actorText(entry.actor)}</td>
              <td data-label="From">{entry.ip ?? fromWithoutIp(entry.actor.type)}</td>
              <td data-label="To">
                {entry.target.type} <code>{entry.target.id}</code>
              </td>
              <td data-label="Details">
                <DetailList lines={detailLines(entry.details)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function DetailList({ lines }: { lines: string[] }) {
  if (lines.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="plain audit-details">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

/** Where a change came from when no address is recorded: a command, or the platform's own event. */
function fromWithoutIp(actorType: AuditEntry['actor']['type']): string {
  return actorType === 'platform' ? 'Platform event' : 'Command line';
}

/** The five newest lists, each a link to its page. */
import { Link } from 'react-router';
import type { List } from '../api/types';
import { formatCount, formatInstant, formatPercent } from '../lib/format';
import { STATE_LABELS } from '../lists/states';

export function RecentLists({ lists }: { lists: readonly List[] }) {
  return (
    <section aria-labelledby="recent-heading" className="card">
      <h2 id="recent-heading">Recent lists</h2>
      {lists.length === 0 ? (
        <p>
          No lists yet. <Link to="/lists">Upload a CSV file or paste addresses</Link> to verify a whole list.
        </p>
      ) : (
        <ul className="plain recent">
          {lists.map((list) => (
            <li key={list.id}>
              <Link to={`/lists/${encodeURIComponent(list.id)}`}>{list.name}</Link>{' '}
              <span className={`state state-${list.state}`}>{STATE_LABELS[list.state]}</span>{' '}
              <span className="muted">
                {formatCount(list.counts.total)} rows, {formatPercent(list.progress)} done ·{' '}
                {formatInstant(list.created_at)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <p>
        <Link to="/lists">See every list</Link>
      </p>
    </section>
  );
}

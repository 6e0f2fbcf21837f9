/**
 * The five newest lists, each a link to its page, followed as on the Lists page (useListPolling:
 * each second while one is queued or running, each ten seconds while one is paused, not at all
 * otherwise), so progress and final states show without a reload; a list deleted meanwhile
 * leaves. Lists made after the page loaded show on the next visit.
 */
import { useCallback, useState } from 'react';
import { Link } from 'react-router';
import type { List } from '../api/types';
import { formatCount, formatInstant, formatPercent } from '../lib/format';
import { STATE_LABELS } from '../lists/states';
import { useListPolling } from '../lists/use-list-polling';

export function RecentLists({ lists: loaded }: { lists: readonly List[] }) {
  const [lists, setLists] = useState(loaded);
  const update = useCallback(
    (list: List) => setLists((shown) => shown.map((each) => (each.id === list.id ? list : each))),
    [],
  );
  const remove = useCallback((id: string) => setLists((shown) => shown.filter((each) => each.id !== id)), []);
  useListPolling(lists, update, remove);

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

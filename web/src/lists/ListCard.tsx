/** One list: its state and live progress, its actions, and on demand its charts and downloads. */
import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { List } from '../api/types';
import { formatInstant } from '../lib/format';
import { Downloads } from './Downloads';
import { ListActions } from './ListActions';
import { ListProgress } from './ListProgress';
import { RecheckNote } from './RecheckNote';
import { ScoreHistogram } from './ScoreHistogram';
import { StatusBreakdown } from './StatusBreakdown';
import { STATE_LABELS } from './states';

interface ListCardProps {
  list: List;
  onChange: (list: List) => void;
  onDeleted: (id: string) => void;
  /** On the list's own page the results are open and the name is the page's heading. */
  standalone?: boolean;
}

export function ListCard({ list, onChange, onDeleted, standalone = false }: ListCardProps) {
  const [open, setOpen] = useState(standalone);
  const id = useId();
  // Standalone, the page's h1 is the list's name and the sections come right under it.
  const Section = standalone ? 'h2' : 'h4';
  return (
    <article className="card list-card" aria-labelledby={`${id}-name`}>
      <div className="list-head">
        {standalone ? (
          <span id={`${id}-name`} className="visually-hidden">
            {list.name}
          </span>
        ) : (
          <h3 id={`${id}-name`}>
            <Link to={`/lists/${encodeURIComponent(list.id)}`}>{list.name}</Link>
          </h3>
        )}
        <span className={`state state-${list.state}`}>{STATE_LABELS[list.state]}</span>
      </div>
      <p className="muted small">
        {list.source.toUpperCase()} upload, {formatInstant(list.created_at)}
        {list.finished_at !== null && `; finished ${formatInstant(list.finished_at)}`}
      </p>
      <ListProgress list={list} />
      <RecheckNote list={list} />
      {list.message !== null && <p className="alert alert-warn">{list.message}</p>}
      <ListActions list={list} onChange={onChange} onDeleted={onDeleted} />
      {!standalone && (
        <button
          type="button"
          className="button link-like"
          aria-expanded={open}
          aria-controls={`${id}-results`}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide results' : 'Show results'}
        </button>
      )}
      <div id={`${id}-results`} hidden={!open}>
        {open && (
          <div className="list-results">
            <section aria-labelledby={`${id}-breakdown`}>
              <Section id={`${id}-breakdown`}>Breakdown by status</Section>
              <StatusBreakdown list={list} />
            </section>
            <section aria-labelledby={`${id}-scores`}>
              <Section id={`${id}-scores`}>Score histogram</Section>
              <ScoreHistogram list={list} />
            </section>
            <section aria-labelledby={`${id}-downloads`}>
              <Section id={`${id}-downloads`}>Download results</Section>
              <Downloads list={list} />
            </section>
          </div>
        )}
      </div>
    </article>
  );
}

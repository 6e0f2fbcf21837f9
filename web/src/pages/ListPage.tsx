/** One list on its own page (/lists/:id): the same card, its results open, and its rows as a table. */
import { useCallback, useEffect, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { List } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { ListCard } from '../lists/ListCard';
import { ResultsTable } from '../lists/ResultsTable';
import { useListPolling } from '../lists/use-list-polling';
import { NotFoundPage } from './NotFoundPage';

export function ListPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [list, setList] = useState<List | null>(null);
  const [problem, setProblem] = useState<{ problem: Problem; status: number } | null>(null);
  const rowsHeading = useId();

  useEffect(() => {
    let current = true;
    void settle(api.GET('/api/v1/lists/{id}', { params: { path: { id } } })).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setList(outcome.data);
      else setProblem({ problem: outcome.problem, status: outcome.status });
    });
    return () => {
      current = false;
    };
  }, [id]);

  const gone = useCallback(() => navigate('/lists', { replace: true }), [navigate]);
  useListPolling(list === null ? [] : [list], setList, gone);

  if (problem?.status === 404) return <NotFoundPage what="list" />;
  return (
    <>
      <PageTitle>{list?.name ?? 'List'}</PageTitle>
      <p>
        <Link to="/lists">Back to every list</Link>
      </p>
      {problem !== null && (
        <div role="alert" className="alert alert-error">
          The list could not be loaded: {problem.problem.message}
        </div>
      )}
      {list === null && problem === null && <p className="muted">Loading the list…</p>}
      {list !== null && (
        <>
          <ListCard list={list} onChange={setList} onDeleted={gone} standalone />
          <section aria-labelledby={rowsHeading}>
            <h2 id={rowsHeading}>Rows and results</h2>
            <ResultsTable list={list} />
          </section>
        </>
      )}
    </>
  );
}

/** Upload lists and follow them: live progress, actions, charts and downloads for each. */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { List } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { ListCard } from '../lists/ListCard';
import { UploadForm } from '../lists/UploadForm';
import { useListPolling } from '../lists/use-list-polling';

const PAGE_SIZE = '20';

export function ListsPage() {
  const [lists, setLists] = useState<List[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  const load = useCallback(async (after: string | null) => {
    const query = after === null ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, cursor: after };
    const outcome = await settle(api.GET('/api/v1/lists', { params: { query } }));
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    setLists((shown) => [...(after === null ? [] : (shown ?? [])), ...outcome.data.lists]);
    setCursor(outcome.data.next_cursor);
  }, []);

  useEffect(() => {
    void load(null);
  }, [load]);

  const update = useCallback(
    (list: List) => setLists((shown) => shown?.map((each) => (each.id === list.id ? list : each)) ?? null),
    [],
  );
  const remove = useCallback(
    (id: string) => setLists((shown) => shown?.filter((each) => each.id !== id) ?? null),
    [],
  );
  useListPolling(lists ?? [], update, remove);

  return (
    <>
      <PageTitle>Lists</PageTitle>
      <section aria-labelledby="upload-heading" className="card">
        <h2 id="upload-heading">Upload a list</h2>
        <UploadForm onCreated={(list) => setLists((shown) => [list, ...(shown ?? [])])} />
      </section>
      <section aria-labelledby="lists-heading">
        <h2 id="lists-heading">Your lists</h2>
        {problem !== null && (
          <div role="alert" className="alert alert-error">
            The lists could not be loaded: {problem.message}
          </div>
        )}
        {lists === null && problem === null && <p className="muted">Loading your lists…</p>}
        {lists !== null && lists.length === 0 && <NoListsYet />}
        {lists !== null && lists.length > 0 && (
          <ul className="plain cards">
            {lists.map((list) => (
              <li key={list.id}>
                <ListCard list={list} onChange={update} onDeleted={remove} />
              </li>
            ))}
          </ul>
        )}
        {cursor !== null && (
          <button type="button" className="button" onClick={() => void load(cursor)}>
            Show older lists
          </button>
        )}
      </section>
    </>
  );
}

function NoListsYet() {
  return (
    <div className="empty">
      <p>
        <strong>No lists yet.</strong> Upload a CSV file above (drop it on the file field or choose it), or
        paste addresses one per line, then press Upload.
      </p>
      <p className="muted">
        Each row is verified in the background; you can leave this page and come back. When the list is done,
        download the results as CSV (your columns plus Mailvet’s) or JSON, keeping only the statuses you want.
      </p>
    </div>
  );
}

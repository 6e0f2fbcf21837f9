/** Pause, resume, cancel and delete a list; a refused action (409: its state moved on) is said in words. */
import { useState } from 'react';
import { api } from '../api/client';
import { type Outcome, settle } from '../api/problem';
import type { List } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { canCancel, canPause, canResume } from './states';

interface ListActionsProps {
  list: List;
  onChange: (list: List) => void;
  onDeleted: (id: string) => void;
}

type Action = 'pause' | 'resume' | 'cancel';

export function ListActions({ list, onChange, onDeleted }: ListActionsProps) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = { params: { path: { id: list.id } } };

  const act = async (action: Action) => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    let outcome: Outcome<List>;
    if (action === 'pause') outcome = await settle(api.POST('/api/v1/lists/{id}/pause', path));
    else if (action === 'resume') outcome = await settle(api.POST('/api/v1/lists/{id}/resume', path));
    else outcome = await settle(api.POST('/api/v1/lists/{id}/cancel', path));
    setBusy(false);
    if (outcome.ok) return onChange(outcome.data);
    setProblem(outcome.problem.message);
    // The list's state may have moved on: show where it is now.
    const fresh = await settle(api.GET('/api/v1/lists/{id}', path));
    if (fresh.ok) onChange(fresh.data);
  };

  const remove = async () => {
    setProblem(null);
    const outcome = await settle(api.DELETE('/api/v1/lists/{id}', path));
    if (outcome.ok || outcome.status === 404) onDeleted(list.id);
    else setProblem(outcome.problem.message);
  };

  return (
    <div className="list-actions">
      <div className="actions">
        {canPause(list) && (
          <button type="button" className="button" aria-disabled={busy} onClick={() => act('pause')}>
            Pause
          </button>
        )}
        {canResume(list) && (
          <button type="button" className="button" aria-disabled={busy} onClick={() => act('resume')}>
            Resume
          </button>
        )}
        {canCancel(list) && (
          <button type="button" className="button" aria-disabled={busy} onClick={() => act('cancel')}>
            Cancel
          </button>
        )}
        <ConfirmButton
          label="Delete"
          question={`Delete “${list.name}” and its results?`}
          confirmLabel="Yes, delete"
          onConfirm={remove}
        />
      </div>
      {problem !== null && (
        <p role="alert" className="alert alert-error">
          {problem}
        </p>
      )}
    </div>
  );
}

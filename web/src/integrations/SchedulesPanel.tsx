/**
 * The integration's schedules: each audience's cron expression and time zone, its next run, and
 * what its last firing did; create one, change, pause, resume or remove it (once confirmed).
 */
import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Audience, Schedule } from '../api/types';
import { ScheduleForm } from './ScheduleForm';
import { SchedulesTable } from './SchedulesTable';

interface SchedulesPanelProps {
  integrationId: string;
  accountName: string;
  headingId: string;
  /** The audiences to schedule (null while they load). */
  audiences: readonly Audience[] | null;
}

/** Which form is open: none, a new schedule's, or one schedule's. */
type Editing = null | 'new' | Schedule;

export function SchedulesPanel({ integrationId, accountName, headingId, audiences }: SchedulesPanelProps) {
  const [schedules, setSchedules] = useState<Schedule[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);

  // Once a form closes, the focus it held goes back to "New schedule".
  useEffect(() => {
    if (editing === null && wasEditing.current) newButton.current?.focus();
    wasEditing.current = editing !== null;
  }, [editing]);

  useEffect(() => {
    let current = true;
    void settle(
      api.GET('/api/v1/integrations/{id}/schedules', { params: { path: { id: integrationId } } }),
    ).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setSchedules(outcome.data.schedules);
      else setProblem(outcome.problem);
    });
    return () => {
      current = false;
    };
  }, [integrationId]);

  const put = (schedule: Schedule) =>
    setSchedules((shown) => {
      const list = shown ?? [];
      return list.some((each) => each.id === schedule.id)
        ? list.map((each) => (each.id === schedule.id ? schedule : each))
        : [...list, schedule];
    });
  const remove = (id: string) => setSchedules((shown) => shown?.filter((each) => each.id !== id) ?? null);
  const close = () => setEditing(null);

  return (
    <section aria-labelledby={headingId} className="schedules">
      <h4 id={headingId}>Schedules</h4>
      {problem !== null && (
        <div role="alert" className="alert alert-error">
          The schedules could not be loaded: {problem.message}
        </div>
      )}
      {schedules === null && problem === null && <p className="muted">Loading schedules…</p>}
      {schedules !== null && schedules.length === 0 && (
        <p className="muted">No schedules: runs start only when you choose “Validate now”.</p>
      )}
      {schedules !== null && schedules.length > 0 && (
        <SchedulesTable
          label={`Schedules of ${accountName}`}
          schedules={schedules}
          audiences={audiences ?? []}
          onChange={put}
          onEdit={setEditing}
          onRemoved={remove}
        />
      )}
      {editing === null ? (
        <button
          type="button"
          ref={newButton}
          className="button"
          disabled={audiences === null || audiences.length === 0}
          onClick={() => setEditing('new')}
        >
          New schedule
        </button>
      ) : (
        <ScheduleForm
          key={editing === 'new' ? 'new' : editing.id}
          integrationId={integrationId}
          audiences={audiences ?? []}
          schedule={editing === 'new' ? null : editing}
          onSaved={(schedule) => {
            put(schedule);
            close();
          }}
          onClose={close}
        />
      )}
    </section>
  );
}

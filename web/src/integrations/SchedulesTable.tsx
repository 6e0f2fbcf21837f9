/** The schedules in a table: when each runs and ran, and its actions (edit, pause or resume, delete). */
import { useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Audience, Schedule } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { ScrollRegion } from '../components/ScrollRegion';
import { formatInstant } from '../lib/format';
import { usePlatform } from './platform';
import { cronWords } from './schedule-times';

interface SchedulesTableProps {
  label: string;
  schedules: readonly Schedule[];
  audiences: readonly Audience[];
  onChange: (schedule: Schedule) => void;
  onEdit: (schedule: Schedule) => void;
  onRemoved: (id: string) => void;
}

export function SchedulesTable({
  label,
  schedules,
  audiences,
  onChange,
  onEdit,
  onRemoved,
}: SchedulesTableProps) {
  const platform = usePlatform();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const nameOf = (schedule: Schedule) =>
    audiences.find((audience) => audience.id === schedule.audience_id)?.name ?? schedule.audience_id;

  const setPaused = async (schedule: Schedule, paused: boolean) => {
    if (busy !== null) return;
    setBusy(schedule.id);
    setProblem(null);
    const outcome = await settle(
      api.PATCH('/api/v1/integrations/{id}/schedules/{scheduleId}', {
        params: { path: { id: schedule.integration_id, scheduleId: schedule.id } },
        body: { paused },
      }),
    );
    setBusy(null);
    if (outcome.ok) onChange(outcome.data);
    else setProblem(outcome.problem.message);
  };

  const remove = async (schedule: Schedule) => {
    setProblem(null);
    const outcome = await settle(
      api.DELETE('/api/v1/integrations/{id}/schedules/{scheduleId}', {
        params: { path: { id: schedule.integration_id, scheduleId: schedule.id } },
      }),
    );
    if (outcome.ok || outcome.status === 404) onRemoved(schedule.id);
    else setProblem(outcome.problem.message);
  };

  return (
    <>
      {problem !== null && (
        <p role="alert" className="alert alert-error">
          {problem}
        </p>
      )}
      <ScrollRegion label={label}>
        <table className="schedules-table stacked-on-narrow">
          <thead>
            <tr>
              <th scope="col">{platform.audience}</th>
              <th scope="col">When</th>
              <th scope="col">Next run</th>
              <th scope="col">Last fired</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {schedules.map((schedule) => (
              <tr key={schedule.id}>
                <th scope="row" className="row-title">
                  {nameOf(schedule)}
                </th>
                <td data-label="When">
                  {cronWords(schedule.cron)} <code>{schedule.cron}</code>
                  <br />
                  <span className="muted small">{schedule.timezone}</span>
                </td>
                <td data-label="Next run">
                  {schedule.paused ? 'None while paused' : formatInstant(schedule.next_run_at, 'None')}
                </td>
                <td data-label="Last fired">
                  {formatInstant(schedule.last_run_at)}
                  {schedule.last_error !== null && <p className="field-error small">{schedule.last_error}</p>}
                </td>
                <td data-label="State">
                  <span className={`state state-${schedule.paused ? 'paused' : 'active'}`}>
                    {schedule.paused ? 'Paused' : 'Active'}
                  </span>
                </td>
                <td>
                  <div className="actions">
                    <button type="button" className="button" onClick={() => onEdit(schedule)}>
                      Edit
                    </button>
                    <button
                      type="button"
                      className="button"
                      aria-disabled={busy === schedule.id}
                      onClick={() => void setPaused(schedule, !schedule.paused)}
                    >
                      {schedule.paused ? 'Resume' : 'Pause'}
                    </button>
                    <ConfirmButton
                      label="Delete"
                      question={`Delete the schedule of “${nameOf(schedule)}”? Runs it started stay.`}
                      confirmLabel="Yes, delete"
                      onConfirm={() => remove(schedule)}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </>
  );
}

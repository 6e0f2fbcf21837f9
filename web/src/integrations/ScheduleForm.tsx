/**
 * Create a schedule of runs for an audience, or change one: a cron expression (or a preset) read in
 * a time zone (the browser's by default), and the same run settings as "Validate now". The API
 * checks the expression and the zone, and says what is wrong beside each.
 */
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Audience, Schedule } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { usePlatform } from './platform';
import { RunSettingsFields } from './RunSettingsFields';
import {
  DEFAULT_RUN_SETTINGS,
  parseRunSettings,
  RUN_SETTINGS_FIELDS,
  settingsValuesOf,
} from './run-settings';
import { browserTimeZone, CRON_PRESETS, timeZones } from './schedule-times';

const FIELDS = ['audience_id', 'cron', 'timezone', ...RUN_SETTINGS_FIELDS] as const;
const DEFAULT_CRON = '0 3 * * 1';

interface ScheduleFormProps {
  integrationId: string;
  audiences: readonly Audience[];
  /** The schedule to change; null to create one. */
  schedule: Schedule | null;
  onSaved: (schedule: Schedule) => void;
  onClose: () => void;
}

export function ScheduleForm({ integrationId, audiences, schedule, onSaved, onClose }: ScheduleFormProps) {
  const platform = usePlatform();
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const [cron, setCron] = useState(schedule?.cron ?? DEFAULT_CRON);
  const [zones] = useState(() => timeZones(schedule?.timezone));
  const headingId = useId();
  const presetId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const audienceName = audiences.find((each) => each.id === schedule?.audience_id)?.name;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    const parsed = parseRunSettings(form);
    const fields = parsed.ok ? {} : { ...parsed.fields };
    if (cron.trim() === '') fields.cron = 'Give a cron expression, or choose a common schedule.';
    if (!parsed.ok || Object.keys(fields).length > 0) return setErrors({ form: null, fields });
    const timezone = String(form.get('timezone'));
    clear();
    setBusy(true);
    const outcome =
      schedule === null
        ? await settle(
            api.POST('/api/v1/integrations/{id}/schedules', {
              params: { path: { id: integrationId } },
              body: { audience_id: String(form.get('audience_id')), cron, timezone, ...parsed.settings },
            }),
          )
        : await settle(
            api.PATCH('/api/v1/integrations/{id}/schedules/{scheduleId}', {
              params: { path: { id: integrationId, scheduleId: schedule.id } },
              body: { cron, timezone, ...parsed.settings },
            }),
          );
    setBusy(false);
    if (!outcome.ok) return fail(outcome.problem);
    onSaved(outcome.data);
  };

  return (
    <section aria-labelledby={headingId} className="card schedule-form">
      <h5 id={headingId} ref={headingRef} tabIndex={-1}>
        {schedule === null
          ? 'New schedule'
          : `Edit the schedule of “${audienceName ?? schedule.audience_id}”`}
      </h5>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        {schedule === null && (
          <Field label={platform.audience} name="audience_id" error={errors.fields.audience_id}>
            {(control) => (
              <select {...control}>
                {audiences.map((audience) => (
                  <option key={audience.id} value={audience.id}>
                    {audience.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <div className="field-row">
          <Field
            label="Cron expression"
            name="cron"
            error={errors.fields.cron}
            hint="Minute, hour, day of the month, month, day of the week: “0 3 * * 1” is every Monday at 03:00."
          >
            {(control) => (
              <input
                {...control}
                type="text"
                spellCheck={false}
                autoComplete="off"
                maxLength={100}
                value={cron}
                onChange={(event) => setCron(event.target.value)}
              />
            )}
          </Field>
          <div className="field">
            <label htmlFor={presetId}>Common schedules</label>
            <select
              id={presetId}
              value={CRON_PRESETS.some((preset) => preset.cron === cron) ? cron : ''}
              onChange={(event) => {
                if (event.target.value !== '') setCron(event.target.value);
              }}
            >
              <option value="">Your own expression</option>
              {CRON_PRESETS.map((preset) => (
                <option key={preset.cron} value={preset.cron}>
                  {preset.label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <Field
          label="Time zone"
          name="timezone"
          error={errors.fields.timezone}
          hint="The times of the expression are read in this zone, summer time included."
        >
          {(control) => (
            <select {...control} defaultValue={schedule?.timezone ?? browserTimeZone()}>
              {zones.map((zone) => (
                <option key={zone} value={zone}>
                  {zone}
                </option>
              ))}
            </select>
          )}
        </Field>
        <RunSettingsFields
          values={schedule === null ? DEFAULT_RUN_SETTINGS : settingsValuesOf(schedule)}
          errors={errors.fields}
        />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            {schedule === null ? 'Create schedule' : 'Save schedule'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </section>
  );
}

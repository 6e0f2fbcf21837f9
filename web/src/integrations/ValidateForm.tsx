/**
 * "Validate now" for one audience: its members are read, verified as a list job and, unless it is
 * a dry run, the results written back. The API answers 202 with the run, followed in the runs
 * panel; a refusal (a run of the audience going, no room for another list) is its message.
 */
import { type FormEvent, useEffect, useId, useRef } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Audience, Run } from '../api/types';
import { FormAlert } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { countWords } from '../lib/count-words';
import { usePlatform, withGrantHint } from './platform';
import { RunSettingsFields } from './RunSettingsFields';
import { DEFAULT_RUN_SETTINGS, parseRunSettings, RUN_SETTINGS_FIELDS } from './run-settings';

interface ValidateFormProps {
  integrationId: string;
  audience: Audience;
  onStarted: (run: Run) => void;
  onClose: () => void;
}

export function ValidateForm({ integrationId, audience, onStarted, onClose }: ValidateFormProps) {
  const platform = usePlatform();
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(RUN_SETTINGS_FIELDS);
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const parsed = parseRunSettings(new FormData(event.currentTarget));
    if (!parsed.ok) return setErrors({ form: null, fields: parsed.fields });
    clear();
    setBusy(true);
    const outcome = await settle(
      api.POST('/api/v1/integrations/{id}/runs', {
        params: { path: { id: integrationId } },
        body: { audience_id: audience.id, ...parsed.settings },
      }),
    );
    setBusy(false);
    if (!outcome.ok) return fail(withGrantHint(outcome.problem, platform));
    onStarted(outcome.data);
  };

  return (
    <section aria-labelledby={headingId} className="card validate-form">
      <h4 id={headingId} ref={headingRef} tabIndex={-1}>
        Validate “{audience.name}”
      </h4>
      <p className="muted small">
        {countWords(audience.member_count, platform.member, platform.members)}. Each address verified counts
        against your monthly quota; the results are also a list you can download.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <RunSettingsFields values={DEFAULT_RUN_SETTINGS} errors={errors.fields} />
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Start validation
          </button>
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
          {busy && <span className="muted">Asking {platform.label}…</span>}
        </div>
      </form>
    </section>
  );
}

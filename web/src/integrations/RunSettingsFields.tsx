/**
 * The choices a run and a schedule share: which members (by status, and all, changed or stale
 * ones), and what is written back to Mailchimp, or nothing at all (a dry run). Unsubscribing invalid
 * contacts is off unless ticked, with its consequence said beside it.
 */
import { useId, useState } from 'react';
import { capitalized, usePlatform } from './platform';
import { type RunSettingsValues, SCOPES, type Scope, scopeLabel } from './run-settings';

interface RunSettingsFieldsProps {
  values: RunSettingsValues;
  errors: Record<string, string>;
}

export function RunSettingsFields({ values, errors }: RunSettingsFieldsProps) {
  const platform = usePlatform();
  const id = useId();
  const [scope, setScope] = useState<Scope>(values.scope);
  const [dryRun, setDryRun] = useState(values.writeBack === null);
  const [unsubscribe, setUnsubscribe] = useState(values.writeBack?.unsubscribeInvalid ?? false);
  const writeBack = values.writeBack ?? { fields: true, tags: true, segments: true };
  const invalid = (name: string) => (errors[name] === undefined ? {} : { 'aria-invalid': true as const });
  const errorOf = (name: string) =>
    errors[name] === undefined ? null : (
      <p id={`${id}-${name}-error`} className="field-error">
        {errors[name]}
      </p>
    );
  const describedBy = (name: string, hint?: string) =>
    [hint, errors[name] === undefined ? undefined : `${id}-${name}-error`].filter(Boolean).join(' ') ||
    undefined;

  return (
    <>
      <fieldset aria-describedby={describedBy('statuses')}>
        <legend>{capitalized(platform.member)} statuses</legend>
        <div className="checkboxes">
          {platform.statuses.map(({ status, label }) => (
            <label key={status} className="checkbox">
              <input
                type="checkbox"
                name="statuses"
                value={status}
                defaultChecked={values.statuses.includes(status)}
                {...invalid('statuses')}
              />
              {label}
            </label>
          ))}
        </div>
        {errorOf('statuses')}
      </fieldset>
      <fieldset aria-describedby={describedBy('scope')}>
        <legend>{capitalized(platform.members)} to verify</legend>
        <div className="choices">
          {SCOPES.map((each) => (
            <label key={each} className="checkbox">
              <input
                type="radio"
                name="scope"
                value={each}
                checked={scope === each}
                onChange={() => setScope(each)}
                {...invalid('scope')}
              />
              {scopeLabel(each, platform.members)}
            </label>
          ))}
        </div>
        {errorOf('scope')}
        <div className="field">
          <label htmlFor={`${id}-stale`}>Days since the last verification</label>
          <input
            id={`${id}-stale`}
            name="stale_days"
            type="text"
            inputMode="numeric"
            className="short"
            defaultValue={values.staleDays}
            disabled={scope !== 'stale'}
            aria-describedby={describedBy('stale_days', `${id}-stale-hint`)}
            {...invalid('stale_days')}
          />
          <p id={`${id}-stale-hint`} className="hint">
            For “not verified for a number of days”: members never verified, or verified longer ago.
          </p>
          {errorOf('stale_days')}
        </div>
      </fieldset>
      <label className="checkbox">
        <input type="checkbox" name="dry_run" checked={dryRun} onChange={() => setDryRun(!dryRun)} />
        Dry run (write nothing to {platform.label})
      </label>
      <fieldset disabled={dryRun} aria-describedby={describedBy('write_back')}>
        <legend>Write back to {platform.label}</legend>
        <div className="checkboxes">
          <label className="checkbox">
            <input
              type="checkbox"
              name="write_fields"
              defaultChecked={writeBack.fields}
              {...invalid('write_back')}
            />
            {platform.fields}
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              name="write_tags"
              defaultChecked={writeBack.tags}
              {...invalid('write_back')}
            />
            {platform.tags}
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              name="write_segments"
              defaultChecked={writeBack.segments}
              {...invalid('write_back')}
            />
            {platform.segments}
          </label>
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            name="unsubscribe_invalid"
            checked={unsubscribe}
            onChange={() => setUnsubscribe(!unsubscribe)}
            aria-describedby={`${id}-unsubscribe-warning`}
          />
          Unsubscribe invalid contacts
        </label>
        <p id={`${id}-unsubscribe-warning`} className={unsubscribe && !dryRun ? 'alert alert-warn' : 'hint'}>
          {platform.unsubscribeEffect}
          Nothing is ever deleted or archived.
        </p>
        {errorOf('write_back')}
      </fieldset>
    </>
  );
}

/** A labelled form control with its hint and its error, tied to it for assistive technology. */
import { type ReactNode, useId } from 'react';

/** What the control must carry to be tied to its label, hint and error. */
export interface ControlProps {
  id: string;
  name: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

interface FieldProps {
  label: string;
  name: string;
  error?: string | undefined;
  hint?: ReactNode;
  children: (control: ControlProps) => ReactNode;
}

export function Field({ label, name, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  const errorId = error === undefined ? undefined : `${id}-error`;
  const describedBy = [hintId, errorId].filter((part) => part !== undefined).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint !== undefined && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {children({
        id,
        name,
        ...(error !== undefined && { 'aria-invalid': true }),
        ...(describedBy !== '' && { 'aria-describedby': describedBy }),
      })}
      {error !== undefined && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

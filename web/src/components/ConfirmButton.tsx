/**
 * A destructive action that asks first: the button turns into the question, with the action and a
 * way back; focus follows so a keyboard user answers at once.
 */
import { useEffect, useRef, useState } from 'react';

interface ConfirmButtonProps {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
}

export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);

  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (asked.current) startRef.current?.focus();
    asked.current = asking;
  }, [asking]);

  if (!asking) {
    return (
      <button
        type="button"
        ref={startRef}
        className="button danger"
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button
        type="button"
        ref={confirmRef}
        className="button danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="button" onClick={() => setAsking(false)}>
        No, keep it
      </button>
    </fieldset>
  );
}

/** Copies a text to the clipboard and says so; falls back to selecting it when the clipboard is closed. */
import { useState } from 'react';

export function CopyButton({
  text,
  targetId,
  label = 'Copy',
}: {
  text: string;
  targetId?: string;
  label?: string;
}) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied to the clipboard.');
    } catch {
      // Without clipboard permission (or over plain HTTP) select the text for Ctrl+C instead.
      const target = targetId === undefined ? null : document.getElementById(targetId);
      if (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement) target.select();
      setSaid('Copying is not allowed here: the text is selected, press Ctrl+C or ⌘C.');
    }
  };
  return (
    <>
      <button type="button" className="button" onClick={copy}>
        {label}
      </button>
      <span role="status" className="copy-status">
        {said}
      </span>
    </>
  );
}

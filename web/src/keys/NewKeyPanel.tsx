/** The key just created, shown this once, with a copy button and the command for a first call. */
import { useEffect, useRef } from 'react';
import type { CreatedKey } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { firstCallCommand } from './curl';

export function NewKeyPanel({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  let keyFieldId = '';
  return (
    <section aria-labelledby="new-key-heading" className="card new-key">
      <h2 id="new-key-heading" ref={headingRef} tabIndex={-1}>
        Key “{created.name}” created
      </h2>
      <p>
        <strong>Copy it now: it is shown this once.</strong> Mailvet keeps only a fingerprint of it; if it is
        lost, revoke it and create another.
      </p>
      <div className="secret-row">
        <Field label="New API key" name="new_key">
          {(control) => {
            keyFieldId = control.id;
            return (
              <textarea
                {...control}
                readOnly
                rows={2}
                value={created.key}
                className="secret"
                spellCheck={false}
                onFocus={(event) => event.currentTarget.select()}
              />
            );
          }}
        </Field>
        <CopyButton text={created.key} targetId={keyFieldId} />
      </div>
      <h3>Your first call</h3>
      <pre className="command">
        <code>{firstCallCommand(created.key)}</code>
      </pre>
      <button type="button" className="button" onClick={onDone}>
        Done, I have copied it
      </button>
    </section>
  );
}

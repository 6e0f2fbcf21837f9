/**
 * The webhook secret of a list just uploaded, shown this once (the API gives it only in its answer
 * to the upload): what a receiver checks the `Mailvet-Signature` of the list's webhooks with.
 */
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';

export function WebhookSecret({ listName, secret }: { listName: string; secret: string }) {
  let secretFieldId = '';
  return (
    <div className="stack">
      <p>
        <strong>Copy the webhook secret of “{listName}” now: it is shown this once.</strong> Your receiver
        checks each webhook’s <code>Mailvet-Signature</code> header with it.
      </p>
      <div className="secret-row">
        <Field label="Webhook signing secret" name="webhook_secret">
          {(control) => {
            secretFieldId = control.id;
            return (
              <textarea
                {...control}
                readOnly
                rows={2}
                value={secret}
                className="secret"
                spellCheck={false}
                onFocus={(event) => event.currentTarget.select()}
              />
            );
          }}
        </Field>
        <CopyButton text={secret} targetId={secretFieldId} />
      </div>
    </div>
  );
}

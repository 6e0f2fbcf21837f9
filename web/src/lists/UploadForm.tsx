/**
 * Upload a list: a CSV file (dropped on the zone or chosen with the picker, sent as multipart) or
 * addresses pasted one per line (sent as JSON `{name, emails, webhook_url}`). With a webhook URL,
 * the list's webhook secret is shown once the list is made, as the API gives it only then.
 */
import { type DragEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { type Outcome, settle } from '../api/problem';
import type { CreatedList, List } from '../api/types';
import { Field } from '../components/Field';
import { FormAlert, FormNotice } from '../components/FormAlert';
import { useApiForm } from '../components/use-form';
import { formatBytes, formatCount } from '../lib/format';
import { WebhookSecret } from './WebhookSecret';

const FIELDS = ['name', 'file', 'column', 'emails', 'webhook_url'] as const;

/** Pasted text to addresses: one per line (commas and semicolons separate too), blanks dropped. */
export function pastedAddresses(text: string): string[] {
  return text
    .split(/[\n\r,;]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function UploadForm({ onCreated }: { onCreated: (list: List) => void }) {
  const { errors, setErrors, fail, clear, busy, setBusy, formRef } = useApiForm(FIELDS);
  const fileRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ listName: string; secret: string } | null>(null);

  // A file dropped beside the zone would make the browser leave the page to open it.
  useEffect(() => {
    const keep = (event: globalThis.DragEvent) => event.preventDefault();
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);

  const drop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const dropped = event.dataTransfer.files;
    if (dropped.length === 0 || fileRef.current === null) return;
    fileRef.current.files = dropped;
    setFile(dropped[0] ?? null);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = new FormData(event.currentTarget);
    const name = String(form.get('name')).trim();
    const column = String(form.get('column')).trim();
    const webhookUrl = String(form.get('webhook_url')).trim();
    const emails = pastedAddresses(String(form.get('emails')));
    const chosen = fileRef.current?.files?.[0];
    setNotice(null);
    setSecret(null);
    if (chosen === undefined && emails.length === 0) {
      return setErrors({ form: 'Choose a CSV file or paste addresses to upload.', fields: {} });
    }
    if (chosen !== undefined && emails.length > 0) {
      return setErrors({
        form: 'Upload either a CSV file or pasted addresses, not both at once.',
        fields: {},
      });
    }
    clear();
    setBusy(true);
    let outcome: Outcome<CreatedList>;
    if (chosen !== undefined) {
      setNotice(`Uploading ${chosen.name} (${formatBytes(chosen.size)})…`);
      // The API reads `name`, `webhook_url` and `column` only before the file.
      const body = new FormData();
      // Named after its file unless named here: "Untitled list" says nothing in the list of lists.
      body.append(
        'name',
        name !== '' ? name : chosen.name.replace(/\.csv$/i, '').slice(0, 200) || 'Untitled list',
      );
      if (webhookUrl !== '') body.append('webhook_url', webhookUrl);
      if (column !== '') body.append('column', column);
      body.append('file', chosen);
      outcome = await settle(
        api.POST('/api/v1/lists', { body: body as never, bodySerializer: (data) => data }),
      );
    } else {
      outcome = await settle(
        api.POST('/api/v1/lists', {
          body: {
            ...(name !== '' && { name }),
            emails,
            ...(webhookUrl !== '' && { webhook_url: webhookUrl }),
          },
        }),
      );
    }
    setBusy(false);
    if (!outcome.ok) {
      setNotice(null);
      return fail(outcome.problem);
    }
    formRef.current?.reset();
    setFile(null);
    const { webhook_secret: webhookSecret, ...list } = outcome.data;
    setNotice(`Uploaded “${list.name}”: ${formatCount(list.counts.total)} rows to verify.`);
    if (webhookSecret !== undefined) setSecret({ listName: list.name, secret: webhookSecret });
    onCreated(list);
  };

  return (
    <>
      <form ref={formRef} onSubmit={submit} noValidate className="stack upload">
        <FormAlert message={errors.form} />
        <Field label="List name (optional)" name="name" error={errors.fields.name}>
          {(control) => (
            <input
              {...control}
              type="text"
              maxLength={200}
              placeholder="The file’s name, or “Untitled list”"
            />
          )}
        </Field>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is a pointer shortcut; the file input inside is the way with a keyboard or a screen reader */}
        <div
          className={`drop-zone${dragging ? ' dragging' : ''}`}
          onDragEnter={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragOver={(event) => event.preventDefault()}
          onDragLeave={() => setDragging(false)}
          onDrop={drop}
        >
          <Field
            label="CSV file"
            name="file"
            error={errors.fields.file}
            hint="Drop a CSV file here, or choose one. Its email column is found by its header (email, e-mail, …)."
          >
            {(control) => (
              <input
                {...control}
                ref={fileRef}
                type="file"
                accept=".csv,text/csv"
                onChange={(event) => setFile(event.target.files?.[0] ?? null)}
              />
            )}
          </Field>
          {file !== null && (
            <p className="muted">
              Chosen: {file.name} ({formatBytes(file.size)})
            </p>
          )}
        </div>
        <Field
          label="Email column (optional)"
          name="column"
          error={errors.fields.column}
          hint="Only when the column is not found by itself: its header, or its number (1 is the first)."
        >
          {(control) => <input {...control} type="text" />}
        </Field>
        <Field label="Or paste addresses, one per line" name="emails" error={errors.fields.emails}>
          {(control) => <textarea {...control} rows={5} spellCheck={false} />}
        </Field>
        <Field
          label="Webhook URL (optional)"
          name="webhook_url"
          error={errors.fields.webhook_url}
          hint="Mailvet POSTs a signed event to it when the list is completed, fails or is cancelled."
        >
          {(control) => (
            <input
              {...control}
              type="url"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              placeholder="https://example.com/hooks/mailvet"
            />
          )}
        </Field>
        <div className="actions">
          <button type="submit" className="button primary" aria-disabled={busy}>
            Upload
          </button>
        </div>
        <FormNotice message={notice} />
      </form>
      {secret !== null && <WebhookSecret listName={secret.listName} secret={secret.secret} />}
    </>
  );
}

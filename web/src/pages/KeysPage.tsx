/** API keys: create (the key shown once), list, edit limits, revoke. Keys are managed with a session only. */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { ApiKey, CreatedKey } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { CreateKeyForm } from '../keys/CreateKeyForm';
import { firstCallCommand } from '../keys/curl';
import { EditKeyForm } from '../keys/EditKeyForm';
import { KeysTable } from '../keys/KeysTable';
import { NewKeyPanel } from '../keys/NewKeyPanel';

export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);

  useEffect(() => {
    let current = true;
    void settle(api.GET('/api/v1/keys')).then((outcome) => {
      if (!current) return;
      if (outcome.ok) setKeys(outcome.data.keys);
      else setProblem(outcome.problem);
    });
    return () => {
      current = false;
    };
  }, []);

  const replace = (key: ApiKey) =>
    setKeys((shown) => shown?.map((each) => (each.id === key.id ? key : each)) ?? null);

  const revoke = async (key: ApiKey) => {
    const outcome = await settle(api.DELETE('/api/v1/keys/{id}', { params: { path: { id: key.id } } }));
    if (!outcome.ok) return setProblem(outcome.problem);
    setProblem(null);
    replace({ ...key, revoked_at: new Date().toISOString() });
    if (editing?.id === key.id) setEditing(null);
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      {created !== null && <NewKeyPanel key={created.id} created={created} onDone={() => setCreated(null)} />}
      {editing === null ? (
        <section aria-labelledby="create-key-heading" className="card">
          <h2 id="create-key-heading">Create a key</h2>
          <CreateKeyForm
            onCreated={(key) => {
              setCreated(key);
              const { key: _secret, ...listed } = key;
              setKeys((shown) => [...(shown ?? []), listed as ApiKey]);
            }}
          />
        </section>
      ) : (
        <EditKeyForm
          key={editing.id}
          apiKey={editing}
          onSaved={(key) => {
            replace(key);
            setEditing(null);
          }}
          onClose={() => setEditing(null)}
        />
      )}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {problem !== null && (
          <div role="alert" className="alert alert-error">
            {problem.message}
          </div>
        )}
        {keys === null && problem === null && <p className="muted">Loading your keys…</p>}
        {keys !== null && keys.length === 0 && <NoKeysYet />}
        {keys !== null && keys.length > 0 && <KeysTable keys={keys} onEdit={setEditing} onRevoke={revoke} />}
      </section>
    </>
  );
}

function NoKeysYet() {
  return (
    <div className="empty">
      <p>
        <strong>You have no API keys yet.</strong> Create one above: give it a name (where it will be used),
        and optionally a rate limit or a monthly cap below your plan’s. The key is shown once; copy it then.
      </p>
      <p>Your first call will look like this, with the new key in place of &lt;the new key&gt;:</p>
      <pre className="command">
        <code>{firstCallCommand('<the new key>')}</code>
      </pre>
    </div>
  );
}

/**
 * One connected platform account: its name, data centre and state; while connected its audiences,
 * runs, schedules and the pre-campaign check, else why it is disconnected; and "Disconnect", which
 * erases the stored key (and removes its schedules and watches) once confirmed.
 */
import { useCallback, useId, useState } from 'react';
import { api } from '../api/client';
import { settle } from '../api/problem';
import type { Integration, IntegrationState } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { formatInstant } from '../lib/format';
import { ConnectedIntegration } from './ConnectedIntegration';
import { PlatformProvider, wordsOf } from './platform';

const STATE_LABELS: Record<IntegrationState, string> = {
  connected: 'Connected',
  disconnected: 'Disconnected',
};

interface IntegrationCardProps {
  integration: Integration;
  /** The platform refused the stored credentials when asked: the integration is disconnected. */
  onRefused: (id: string, message: string) => void;
  onDisconnected: (id: string) => void;
}

export function IntegrationCard({ integration, onRefused, onDisconnected }: IntegrationCardProps) {
  const platform = wordsOf(integration.provider);
  const id = useId();
  const [problem, setProblem] = useState<string | null>(null);
  const integrationId = integration.id;
  const refused = useCallback(
    (message: string) => onRefused(integrationId, message),
    [integrationId, onRefused],
  );

  const disconnect = async () => {
    setProblem(null);
    const outcome = await settle(
      api.DELETE('/api/v1/integrations/{id}', { params: { path: { id: integration.id } } }),
    );
    if (outcome.ok || outcome.status === 404) onDisconnected(integration.id);
    else setProblem(outcome.problem.message);
  };

  return (
    <PlatformProvider provider={integration.provider}>
      <article className="card integration-card" aria-labelledby={`${id}-name`}>
        <div className="list-head">
          <h3 id={`${id}-name`}>{integration.account_name}</h3>
          <span className={`state state-${integration.state}`}>{STATE_LABELS[integration.state]}</span>
        </div>
        <p className="muted small">
          {platform.where(integration.dc, integration.portal_id)}; connected{' '}
          {formatInstant(integration.created_at)}
        </p>
        {integration.state === 'connected' ? (
          <ConnectedIntegration
            integration={integration}
            idBase={id}
            onDisconnected={refused}
            onProblem={setProblem}
          />
        ) : (
          <div role="alert" className="alert alert-warn">
            <p>{integration.message ?? `${platform.label} refused the stored credentials.`}</p>
            <p>{platform.reconnect}</p>
          </div>
        )}
        <div className="actions">
          <ConfirmButton
            label="Disconnect"
            question={`Disconnect “${integration.account_name}”? Its stored ${platform.credential} is erased, its schedules and ${platform.watchesRemoved} removed; contacts in ${platform.label} stay as they are.`}
            confirmLabel="Yes, disconnect"
            onConfirm={disconnect}
          />
        </div>
        {problem !== null && (
          <p role="alert" className="alert alert-error">
            {problem}
          </p>
        )}
      </article>
    </PlatformProvider>
  );
}

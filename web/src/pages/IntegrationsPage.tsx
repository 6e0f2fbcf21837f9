/**
 * Integrations: connect Mailchimp or HubSpot (with an API key or a private app token, or OAuth where
 * the operator set it up), and per connected account validate audiences (lists) with live progress,
 * schedule runs, watch new subscribers (contacts) and check a draft campaign (marketing email)
 * (IntegrationCard); or see why it was disconnected, and disconnect it. An OAuth callback's outcome
 * is shown, in the platform's words, in the section of the platform it came back from.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Integration } from '../api/types';
import { PageTitle } from '../components/PageTitle';
import { ConnectHubSpotForm } from '../integrations/ConnectHubSpotForm';
import { ConnectMailchimpForm } from '../integrations/ConnectMailchimpForm';
import { IntegrationCard } from '../integrations/IntegrationCard';
import { wordsOf } from '../integrations/platform';

type OAuthOutcome = { ok: boolean; text: string };

/**
 * What the OAuth callback's return (`?connected=…` or `?error=…`, with `provider=…`) tells the
 * person, in the words of the platform it came back from (Mailchimp when it names none).
 */
function oauthOutcomeOf(provider: string, reason: string): OAuthOutcome | undefined {
  const { oauth } = wordsOf(provider);
  if (reason === 'connected') return { ok: true, text: oauth.connected };
  if (reason === 'denied' || reason === 'state' || reason === 'refused')
    return { ok: false, text: oauth[reason] };
  return undefined;
}

export function IntegrationsPage() {
  const [integrations, setIntegrations] = useState<Integration[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [oauthUrl, setOauthUrl] = useState<string | null>(null);
  const [hubspotOauthUrl, setHubspotOauthUrl] = useState<string | null>(null);
  const [query, setQuery] = useSearchParams();
  // The callback's outcome is read once, then taken out of the address: a reload or a later
  // connection does not show it again.
  const [oauthReturn] = useState(() => {
    const provider = query.get('provider') === 'hubspot' ? 'hubspot' : 'mailchimp';
    return {
      provider,
      outcome: oauthOutcomeOf(provider, query.get('error') ?? (query.has('connected') ? 'connected' : '')),
      connectedId: query.get('connected'),
    };
  });
  const [showOAuthOutcome, setShowOAuthOutcome] = useState(true);
  const listHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (query.has('connected') || query.has('error') || query.has('provider'))
      setQuery({}, { replace: true });
  }, [query, setQuery]);

  useEffect(() => {
    let current = true;
    void settle(api.GET('/api/v1/integrations')).then((outcome) => {
      if (!current) return;
      if (outcome.ok) {
        setIntegrations(outcome.data.integrations);
        setOauthUrl(outcome.data.mailchimp_oauth_url);
        setHubspotOauthUrl(outcome.data.hubspot_oauth_url ?? null);
      } else setProblem(outcome.problem);
    });
    return () => {
      current = false;
    };
  }, []);

  const refused = useCallback(
    (id: string, message: string) =>
      setIntegrations(
        (shown) =>
          shown?.map((each) =>
            each.id === id ? { ...each, state: 'disconnected' as const, message } : each,
          ) ?? null,
      ),
    [],
  );
  const disconnected = useCallback((id: string) => {
    setIntegrations((shown) => shown?.filter((each) => each.id !== id) ?? null);
    // The card that held the focus is gone: the list's heading takes it.
    listHeading.current?.focus();
  }, []);

  // Connected by OAuth: named as a key connection is, once the list says which account it was.
  const connectedByOAuth = integrations?.find((each) => each.id === oauthReturn.connectedId);
  const oauthOutcome =
    oauthReturn.outcome?.ok === true && connectedByOAuth !== undefined
      ? { ok: true, text: wordsOf(connectedByOAuth.provider).connectedAs(connectedByOAuth) }
      : oauthReturn.outcome;
  /** The outcome's alert, in the section of the platform it came back from. */
  const oauthAlert = (provider: string) =>
    showOAuthOutcome &&
    oauthOutcome !== undefined &&
    oauthReturn.provider === provider && (
      <div
        role={oauthOutcome.ok ? 'status' : 'alert'}
        className={oauthOutcome.ok ? 'alert' : 'alert alert-error'}
      >
        {oauthOutcome.text}
      </div>
    );

  return (
    <>
      <PageTitle>Integrations</PageTitle>
      <p className="muted">
        Connect an email platform to verify its contacts where they live. Mailvet never deletes or archives a
        contact.
      </p>
      <section aria-labelledby="connect-heading" className="card">
        <h2 id="connect-heading">Connect Mailchimp</h2>
        {oauthAlert('mailchimp')}
        {oauthUrl !== null && (
          <p>
            {/* A full page load: the server sends the browser on to Mailchimp's consent page. */}
            <a className="button" href={oauthUrl}>
              Connect Mailchimp
            </a>{' '}
            <span className="muted">or paste an API key:</span>
          </p>
        )}
        <ConnectMailchimpForm
          submitLabel={oauthUrl === null ? 'Connect Mailchimp' : 'Connect with API key'}
          onConnected={(integration) => {
            setShowOAuthOutcome(false);
            setIntegrations((shown) => [...(shown ?? []), integration]);
          }}
        />
      </section>
      <section aria-labelledby="connect-hubspot-heading" className="card">
        <h2 id="connect-hubspot-heading">Connect HubSpot</h2>
        {oauthAlert('hubspot')}
        <p className="muted">
          Verify the contacts of a HubSpot portal: its lists, all contacts, and marketing emails before they
          go out.
        </p>
        {hubspotOauthUrl !== null && (
          <p>
            {/* A full page load: the server sends the browser on to HubSpot's consent page. */}
            <a className="button" href={hubspotOauthUrl}>
              Connect HubSpot
            </a>{' '}
            <span className="muted">or paste a private app token:</span>
          </p>
        )}
        <ConnectHubSpotForm
          submitLabel={hubspotOauthUrl === null ? 'Connect HubSpot' : 'Connect with private app token'}
          onConnected={(integration) => {
            setShowOAuthOutcome(false);
            setIntegrations((shown) => [...(shown ?? []), integration]);
          }}
        />
      </section>
      <section aria-labelledby="integrations-heading">
        <h2 id="integrations-heading" ref={listHeading} tabIndex={-1}>
          Your integrations
        </h2>
        {problem !== null && (
          <div role="alert" className="alert alert-error">
            The integrations could not be loaded: {problem.message}
          </div>
        )}
        {integrations === null && problem === null && <p className="muted">Loading your integrations…</p>}
        {integrations !== null && integrations.length === 0 && (
          <div className="empty">
            <p>
              <strong>No integrations yet.</strong> Connect a Mailchimp account or a HubSpot portal above to
              see its audiences or lists here.
            </p>
          </div>
        )}
        {integrations !== null && integrations.length > 0 && (
          <ul className="plain cards">
            {integrations.map((integration) => (
              <li key={integration.id}>
                <IntegrationCard
                  integration={integration}
                  onRefused={refused}
                  onDisconnected={disconnected}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

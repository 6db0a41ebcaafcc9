import { type FormEvent, useState } from 'react';
import { call } from '../../api.ts';
import { Notice, useLoad } from '../../components.tsx';
import type { Voice, VoiceProvider, VoiceRoute } from '../../types.ts';
import { PROVIDER_LABELS, STATE_LABELS } from './route-labels.tsx';
import { useAction, voicePath } from './use-action.ts';

const PROVIDERS: readonly VoiceProvider[] = ['elevenlabs', 'fishaudio', 'native'];

/** The fields of a workspace provider account this panel offers (GET /provider-accounts). */
interface AccountChoice {
  id: string;
  provider: string;
  label: string;
  key_last4: string;
}

/** What choosing a provider does: attach a new route, refresh one, or nothing (attached). */
type Offer =
  | { kind: 'attach' }
  | { kind: 'refresh'; route: VoiceRoute }
  | { kind: 'attached'; route: VoiceRoute };

function offerFor(voice: Voice, provider: VoiceProvider): Offer {
  const route = voice.routes.find((r) => r.provider === provider);
  if (!route) return { kind: 'attach' };
  // Re-submitting an attached provider refreshes it, only once recordings changed (rule 8).
  return route.state === 'update_available'
    ? { kind: 'refresh', route }
    : { kind: 'attached', route };
}

/**
 * Clone to providers (spec rules 6-8): providers not attached yet get a route on their
 * recommended model, optionally through a workspace provider account; an attached provider
 * can be chosen again only when its route is Update available, which refreshes it.
 */
export function ClonePanel(props: { voice: Voice; onSubmitted: () => void }) {
  const { voice } = props;
  const accounts = useLoad(() =>
    call<{ provider_accounts: AccountChoice[] }>('GET', '/provider-accounts').then(
      (r) => r.provider_accounts,
    ),
  );
  const [chosen, setChosen] = useState<ReadonlySet<VoiceProvider>>(new Set());
  const [accountOf, setAccountOf] = useState<Partial<Record<VoiceProvider, string>>>({});
  const [submitted, setSubmitted] = useState<string>();
  const action = useAction(props.onSubmitted);

  const offers = new Map(PROVIDERS.map((provider) => [provider, offerFor(voice, provider)]));
  // A choice whose provider got attached meanwhile (another tab, a poll) no longer counts.
  const targets = PROVIDERS.filter(
    (provider) => chosen.has(provider) && offers.get(provider)?.kind !== 'attached',
  );

  const toggle = (provider: VoiceProvider, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(provider);
    else next.delete(provider);
    setChosen(next);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(undefined);
    const body = {
      targets: targets.map((provider) => {
        const account = offers.get(provider)?.kind === 'attach' ? accountOf[provider] : undefined;
        return account ? { provider, provider_account_id: account } : { provider };
      }),
    };
    if (await action.run(() => call('POST', voicePath(voice.id, '/clone'), body))) {
      setSubmitted(targets.map((provider) => PROVIDER_LABELS[provider]).join(', '));
      setChosen(new Set());
    }
  };

  return (
    <form className="card clone-panel" onSubmit={submit} aria-label="Clone to providers">
      <h2>Clone to providers</h2>
      <p className="muted">
        Each provider uses its recommended model. A provider is attached once; after new recordings,
        choose it again to refresh its route with the current recordings.
      </p>
      {PROVIDERS.map((provider) => {
        const offer = offers.get(provider) ?? { kind: 'attach' };
        const upstream = provider !== 'native';
        const choices = (accounts.data ?? []).filter((account) => account.provider === provider);
        return (
          <div className="clone-target" key={provider} data-provider={provider}>
            <label className="checkbox">
              <input
                type="checkbox"
                name={`clone-${provider}`}
                checked={offer.kind !== 'attached' && chosen.has(provider)}
                disabled={offer.kind === 'attached' || action.busy}
                onChange={(event) => toggle(provider, event.target.checked)}
              />
              <span>{PROVIDER_LABELS[provider]}</span>
              <span className="muted">
                {offer.kind === 'attach'
                  ? '— recommended model'
                  : offer.kind === 'refresh'
                    ? '— re-submit to refresh with the new recordings'
                    : `— already attached (${STATE_LABELS[offer.route.state]})`}
              </span>
            </label>
            {upstream && offer.kind === 'attach' && chosen.has(provider) ? (
              <label className="clone-account">
                Provider account
                <select
                  value={accountOf[provider] ?? ''}
                  onChange={(event) =>
                    setAccountOf({ ...accountOf, [provider]: event.target.value || undefined })
                  }
                >
                  <option value="">The platform’s account</option>
                  {choices.map((account) => (
                    <option key={account.id} value={account.id}>
                      {account.label} (…{account.key_last4})
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
          </div>
        );
      })}
      {accounts.error ? (
        <Notice kind="warning">
          Your provider accounts could not be listed ({accounts.error}); the platform’s account is
          used.
        </Notice>
      ) : null}
      {action.error ? <Notice kind="error">{action.error}</Notice> : null}
      {submitted ? (
        <Notice kind="success" onDismiss={() => setSubmitted(undefined)}>
          Submitted to {submitted}. Each route shows Cloning until its provider finishes.
        </Notice>
      ) : null}
      <div>
        <button type="submit" className="primary" disabled={action.busy || targets.length === 0}>
          Clone
        </button>
      </div>
    </form>
  );
}

import { useState } from 'react';
import { call, describeError } from '../../api.ts';
import { navigate } from '../../router.ts';
import type { CreatedVoice, ProviderAccount } from '../../types.ts';
import {
  CLONE_PROVIDERS,
  type CloneProvider,
  PROVIDER_NAMES,
  RECOMMENDED_MODELS,
  readsEmotionTags,
  type VendorProvider,
} from './models.ts';

/** The providers a new voice is cloned to, and the account each vendor clone uses. */
export interface CloneTargets {
  providers: CloneProvider[];
  /** Chosen account per vendor; absent means the vendor's only account or the platform's. */
  accounts: Partial<Record<VendorProvider, string>>;
}

export const INITIAL_TARGETS: CloneTargets = { providers: [], accounts: {} };

/** One recording as it is uploaded: the file, its spoken language and its exact transcript. */
export interface RecordingUpload {
  file: Blob;
  fileName: string;
  language: string;
  transcript: string;
}

/**
 * Creates a voice (`POST /voices`, multipart): a `metadata` JSON field and one `recording`
 * file per entry of `recordings`, in order. The voice id comes back with the first clone.
 */
export function createVoice(
  name: string,
  targets: CloneTargets,
  recordings: RecordingUpload[],
): Promise<CreatedVoice> {
  const form = new FormData();
  form.set(
    'metadata',
    JSON.stringify({
      name: name.trim(),
      permission_confirmed: true,
      targets: targets.providers.map((provider) => {
        const account = provider === 'native' ? undefined : targets.accounts[provider];
        return account ? { provider, provider_account_id: account } : { provider };
      }),
      recordings: recordings.map((r) => ({
        language: r.language,
        transcript: r.transcript.trim(),
      })),
    }),
  );
  for (const recording of recordings) form.append('recording', recording.file, recording.fileName);
  return call<CreatedVoice>('POST', '/voices', form);
}

/**
 * Provider checkboxes (at least one), each cloning onto its recommended model, and for each
 * chosen vendor the provider account to use. With no account of its own the workspace uses
 * the platform's account; with one or more, the clone uses the chosen one.
 */
export function ProviderChoice(props: {
  value: CloneTargets;
  onChange: (value: CloneTargets) => void;
  accounts: ProviderAccount[] | undefined;
  accountsError: string | undefined;
}) {
  const { value, onChange } = props;
  const toggle = (provider: CloneProvider, checked: boolean) => {
    const providers = checked
      ? CLONE_PROVIDERS.filter((p) => p === provider || value.providers.includes(p))
      : value.providers.filter((p) => p !== provider);
    onChange({ ...value, providers });
  };
  return (
    <fieldset className="provider-choice">
      <legend>Providers</legend>
      <p className="muted fine-print">
        Each provider clones onto its recommended model. Only S2-family (Fish Audio) and v3
        (ElevenLabs) models read emotion tags such as <code>[whispers]</code>.
      </p>
      {CLONE_PROVIDERS.map((provider) => {
        const model = RECOMMENDED_MODELS[provider];
        const checked = value.providers.includes(provider);
        return (
          <div className="provider-option" key={provider}>
            <label className="checkbox">
              <input
                type="checkbox"
                name="provider"
                value={provider}
                checked={checked}
                onChange={(event) => toggle(provider, event.target.checked)}
              />
              <span>
                {PROVIDER_NAMES[provider]}
                <span className="muted">
                  {' '}
                  · <code>{model}</code> (recommended model;{' '}
                  {readsEmotionTags(provider, model) ? 'reads emotion tags' : 'no emotion tags'})
                </span>
              </span>
            </label>
            {checked && provider !== 'native' ? (
              <AccountChoice
                provider={provider}
                accounts={props.accounts}
                value={value.accounts[provider]}
                onChange={(id) =>
                  onChange({ ...value, accounts: { ...value.accounts, [provider]: id } })
                }
              />
            ) : null}
          </div>
        );
      })}
      {props.accountsError ? (
        <p className="muted fine-print">
          Provider accounts could not be read: {props.accountsError}
        </p>
      ) : null}
    </fieldset>
  );
}

function AccountChoice(props: {
  provider: VendorProvider;
  accounts: ProviderAccount[] | undefined;
  value: string | undefined;
  onChange: (id: string) => void;
}) {
  const own = (props.accounts ?? []).filter((account) => account.provider === props.provider);
  if (own.length === 0) {
    return <div className="provider-account muted fine-print">Account: the platform’s account</div>;
  }
  return (
    <label className="provider-account fine-print">
      {PROVIDER_NAMES[props.provider]} account
      <select
        value={props.value ?? own[0]?.id}
        onChange={(event) => props.onChange(event.target.value)}
      >
        {own.map((account) => (
          <option key={account.id} value={account.id}>
            {account.label} (••••{account.key_last4})
          </option>
        ))}
      </select>
    </label>
  );
}

/** The speaker-permission checkbox every creation and import requires (spec rule 3). */
export function PermissionCheckbox(props: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="checkbox permission">
      <input
        type="checkbox"
        name="permission"
        checked={props.checked}
        onChange={(event) => props.onChange(event.target.checked)}
      />
      I confirm I have the speaker’s permission to clone this voice.
    </label>
  );
}

/** The "n/n" transcript counter: recordings with a transcript over recordings (rule 4). */
export function TranscriptCounter(props: { withTranscript: number; recordings: number }) {
  const complete = props.recordings > 0 && props.withTranscript === props.recordings;
  return (
    <span
      className={complete ? 'transcript-counter complete' : 'transcript-counter'}
      data-testid="transcripts"
    >
      Transcripts {props.withTranscript}/{props.recordings}
    </span>
  );
}

/** The accounts the chosen vendor clones use, resolved for a submission. */
export function resolvedTargets(
  targets: CloneTargets,
  accounts: ProviderAccount[] | undefined,
): CloneTargets {
  const resolved: CloneTargets['accounts'] = {};
  for (const provider of targets.providers) {
    if (provider === 'native') continue;
    const own = (accounts ?? []).filter((account) => account.provider === provider);
    const chosen = targets.accounts[provider];
    const id = own.some((account) => account.id === chosen) ? chosen : own[0]?.id;
    if (id) resolved[provider] = id;
  }
  return { providers: targets.providers, accounts: resolved };
}

/** Why Create is disabled, as a list an operator can act on; empty when it is enabled. */
export function missingForCreate(checks: {
  name: string;
  targets: CloneTargets;
  recordings: number;
  withTranscript: number;
  permission: boolean;
}): string[] {
  const missing: string[] = [];
  if (checks.name.trim() === '') missing.push('a voice name');
  if (checks.recordings === 0) missing.push('a recording');
  else if (checks.withTranscript < checks.recordings) missing.push('the exact transcript');
  if (checks.targets.providers.length === 0) missing.push('at least one provider');
  if (!checks.permission) missing.push('the speaker’s permission');
  return missing;
}

/** The Create button with the list of what is still missing under it. */
export function CreateButton(props: { missing: string[]; busy: boolean }) {
  return (
    <div className="submit-row">
      <button type="submit" className="primary" disabled={props.busy || props.missing.length > 0}>
        {props.busy ? 'Creating…' : 'Create voice'}
      </button>
      {props.missing.length > 0 ? (
        <span className="muted fine-print">Still needed: {props.missing.join(', ')}.</span>
      ) : null}
    </div>
  );
}

/**
 * Name, providers, permission and submission shared by the Upload and Record tabs:
 * `submit` creates the voice and opens its page; a refusal shows the API's detail.
 */
export function useCreateVoice(accounts: ProviderAccount[] | undefined) {
  const [name, setName] = useState('');
  const [targets, setTargets] = useState<CloneTargets>(INITIAL_TARGETS);
  const [permission, setPermission] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (recordings: RecordingUpload[]) => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await createVoice(name, resolvedTargets(targets, accounts), recordings);
      navigate(`/voices/${encodeURIComponent(created.voice.id)}`);
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };
  return { name, setName, targets, setTargets, permission, setPermission, busy, error, submit };
}

import { type FormEvent, useEffect, useRef, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { Notice } from '../../components.tsx';
import { linkProps, navigate } from '../../router.ts';
import type { CatalogPage, CatalogVoice, CreatedVoice, ProviderAccount } from '../../types.ts';
import { PermissionCheckbox } from './clone-form.tsx';
import { PROVIDER_NAMES, RECOMMENDED_MODELS, ROUTE_MODELS } from './models.ts';

type Source = 'own' | 'public';

interface CatalogState {
  voices: CatalogVoice[];
  nextPageToken: string | null;
  loading: boolean;
  error?: string;
}

const keyOf = (voice: CatalogVoice) => `${voice.public_owner_id ?? ''}/${voice.provider_voice_id}`;

/** Pages of one account's catalog for one source and search; `more` appends the next page. */
function useCatalog(accountId: string | undefined, source: Source, search: string) {
  const [state, setState] = useState<CatalogState>({
    voices: [],
    nextPageToken: null,
    loading: false,
  });
  const generation = useRef(0);

  const fetchPage = async (pageToken: string | null) => {
    if (!accountId) return;
    const current = ++generation.current;
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    const query = new URLSearchParams({ source });
    if (search !== '') query.set('search', search);
    if (pageToken) query.set('page_token', pageToken);
    try {
      const page = await call<CatalogPage>(
        'GET',
        `/provider-accounts/${encodeURIComponent(accountId)}/catalog?${query}`,
      );
      if (current !== generation.current) return;
      setState((previous) => ({
        voices: pageToken ? [...previous.voices, ...page.voices] : page.voices,
        nextPageToken: page.next_page_token,
        loading: false,
      }));
    } catch (caught) {
      if (current !== generation.current) return;
      setState((previous) => ({ ...previous, loading: false, error: describeError(caught) }));
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new account, source or search starts over
  useEffect(() => {
    setState({ voices: [], nextPageToken: null, loading: false });
    void fetchPage(null);
  }, [accountId, source, search]);

  return { ...state, more: () => void fetchPage(state.nextPageToken) };
}

/**
 * Import existing (spec rule 9): a voice from a provider account's own voices or the
 * vendor's public library, searched and paged, adopted with a chosen route model. The
 * imported voice is Ready at once.
 */
export function ImportTab(props: {
  accounts: ProviderAccount[] | undefined;
  accountsError: string | undefined;
}) {
  const accounts = props.accounts ?? [];
  const [accountId, setAccountId] = useState<string>();
  const account = accounts.find((a) => a.id === accountId) ?? accounts[0];
  const [source, setSource] = useState<Source>('own');
  const [searchInput, setSearchInput] = useState('');
  const [search, setSearch] = useState('');
  const catalog = useCatalog(account?.id, source, search);
  const [selected, setSelected] = useState<CatalogVoice>();
  const [model, setModel] = useState<string>();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  if (props.accountsError) return <Notice kind="error">{props.accountsError}</Notice>;
  if (props.accounts === undefined) return <p className="muted">Loading provider accounts…</p>;
  if (!account) {
    return (
      <Notice kind="info">
        Importing needs a provider account: your API key at ElevenLabs or Fish Audio.{' '}
        <a {...linkProps('/provider-accounts')}>Add one on Provider accounts</a>.
      </Notice>
    );
  }

  const models = ROUTE_MODELS[account.provider];
  const routeModel =
    model && models.some((m) => m.id === model) ? model : RECOMMENDED_MODELS[account.provider];
  const chosen =
    selected && catalog.voices.some((v) => keyOf(v) === keyOf(selected)) ? selected : undefined;

  const startOver = () => {
    setSelected(undefined);
    setError(undefined);
  };

  const importVoice = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen || !permission) return;
    setBusy(true);
    setError(undefined);
    try {
      const created = await call<CreatedVoice>('POST', '/voices/import', {
        provider_account_id: account.id,
        source,
        provider_voice_id: chosen.provider_voice_id,
        ...(chosen.public_owner_id ? { public_owner_id: chosen.public_owner_id } : {}),
        model: routeModel,
        ...(name.trim() !== '' ? { name: name.trim() } : {}),
        permission_confirmed: true,
      });
      navigate(`/voices/${encodeURIComponent(created.voice.id)}`);
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <div className="form-grid">
      <div className="import-controls">
        <label>
          Provider account
          <select
            name="provider-account"
            value={account.id}
            onChange={(event) => {
              setAccountId(event.target.value);
              setModel(undefined);
              startOver();
            }}
          >
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.label} · {PROVIDER_NAMES[a.provider]} (••••{a.key_last4})
              </option>
            ))}
          </select>
        </label>
        <fieldset className="catalog-source">
          <legend>Catalog</legend>
          {(
            [
              ['own', 'My voices'],
              ['public', 'Public library'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="checkbox">
              <input
                type="radio"
                name="catalog-source"
                checked={source === value}
                onChange={() => {
                  setSource(value);
                  startOver();
                }}
              />
              {label}
            </label>
          ))}
        </fieldset>
      </div>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(searchInput.trim());
          startOver();
        }}
      >
        <label>
          Search
          <input
            type="search"
            name="search"
            maxLength={100}
            value={searchInput}
            placeholder="Name or description"
            onChange={(event) => setSearchInput(event.target.value)}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      {catalog.error ? <Notice kind="error">{catalog.error}</Notice> : null}
      <div className="catalog" role="radiogroup" aria-label="Catalog voices">
        {catalog.voices.map((voice) => (
          <label
            key={keyOf(voice)}
            className={
              chosen && keyOf(chosen) === keyOf(voice) ? 'catalog-item selected' : 'catalog-item'
            }
          >
            <input
              type="radio"
              name="catalog-voice"
              aria-label={voice.name}
              checked={chosen !== undefined && keyOf(chosen) === keyOf(voice)}
              onChange={() => setSelected(voice)}
            />
            <div className="catalog-item-body">
              <div className="catalog-item-name">{voice.name}</div>
              {voice.description ? (
                <div className="muted fine-print">{voice.description}</div>
              ) : null}
              <div className="muted fine-print">
                {voice.languages.length > 0 ? voice.languages.join(', ') : 'Languages not listed'}
              </div>
            </div>
            {voice.preview_url ? (
              // biome-ignore lint/a11y/useMediaCaption: vendor previews come without captions
              <audio controls preload="none" src={voice.preview_url} />
            ) : null}
          </label>
        ))}
        {!catalog.loading && catalog.voices.length === 0 && !catalog.error ? (
          <p className="muted">
            {search ? `No voices match “${search}”.` : 'This catalog has no voices.'}
          </p>
        ) : null}
        {catalog.loading ? <p className="muted">Loading voices…</p> : null}
      </div>
      {catalog.nextPageToken && !catalog.loading ? (
        <div>
          <button type="button" onClick={catalog.more}>
            Load more
          </button>
        </div>
      ) : null}
      <form className="form-grid" onSubmit={importVoice}>
        <label>
          Route model
          <select
            name="model"
            value={routeModel}
            onChange={(event) => setModel(event.target.value)}
          >
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
                {m.id === RECOMMENDED_MODELS[account.provider] ? ' (recommended)' : ''}
                {m.emotionTags ? ' · emotion tags' : ''}
              </option>
            ))}
          </select>
          <span className="muted fine-print">
            Only S2-family and v3 models read emotion tags such as <code>[whispers]</code>.
          </span>
        </label>
        <label>
          Name (optional)
          <input
            name="import-name"
            maxLength={100}
            value={name}
            placeholder={chosen ? chosen.name : 'The vendor’s name of the voice'}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <PermissionCheckbox checked={permission} onChange={setPermission} />
        {error ? <Notice kind="error">{error}</Notice> : null}
        <div className="submit-row">
          <button type="submit" className="primary" disabled={busy || !chosen || !permission}>
            {busy ? 'Importing…' : 'Import voice'}
          </button>
          {!chosen ? (
            <span className="muted fine-print">Choose a voice from the catalog.</span>
          ) : null}
        </div>
      </form>
    </div>
  );
}

import { type FormEvent, useEffect, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice, Page, useLoad } from '../../components.tsx';
import { linkProps } from '../../router.ts';
import {
  type ClientVoice,
  type Generation,
  PLAYGROUND_FORMATS,
  type PlaygroundFormat,
  type PlaygroundRoute,
  type PlaygroundVoice,
} from './playground-types.ts';
import { TagTextArea } from './tag-search.tsx';
import './playground.css';

const WARNINGS: Record<string, string> = {
  tags_skipped: 'This route does not support tags: they were skipped and the rest was spoken.',
  tags_unsupported: 'This route does not support tags: Auto Tag left the text as it was.',
};
const HAS_TAG = /\[[^[\]\n]+\]/;

/**
 * The Playground (spec rule 10): a voice (and optionally one of its routes), text with
 * inline tag search and Auto Tag, output format PCM, AAC or Opus, an optional Speed
 * override. Each generation plays here and is kept in the voice's History.
 */
export function PlaygroundPage() {
  const voices = useLoad(async () => {
    const [catalog, workspace] = await Promise.all([
      call<{ voices: ClientVoice[] }>('GET', '/catalog'),
      call<{ voices: { id: string; routes: PlaygroundRoute[] }[] }>('GET', '/voices'),
    ]);
    const routes = new Map(workspace.voices.map((voice) => [voice.id, voice.routes]));
    return catalog.voices.map(
      (voice): PlaygroundVoice => ({ ...voice, routes: routes.get(voice.id) ?? [] }),
    );
  });
  const usable = voices.data ?? [];
  // `?voice=ID` (the Voices page's "Try in Playground") picks the voice; else the first.
  const [voiceId, setVoiceId] = useState(
    () => new URLSearchParams(window.location.search).get('voice') ?? '',
  );
  useEffect(() => {
    const first = usable[0];
    if (first && !usable.some((voice) => voice.id === voiceId)) setVoiceId(first.id);
  }, [usable, voiceId]);
  const voice = usable.find((candidate) => candidate.id === voiceId);

  return (
    <Page title="Playground">
      {voices.error ? <Notice kind="error">{voices.error}</Notice> : null}
      {voices.data && usable.length === 0 ? (
        <Notice kind="info">
          No voice is ready to speak yet. <a {...linkProps('/voices/new')}>Create a voice</a> or
          wait for a clone to finish.
        </Notice>
      ) : null}
      {usable.length > 0 ? (
        <label className="field-narrow">
          Voice
          <select value={voiceId} onChange={(event) => setVoiceId(event.target.value)}>
            {usable.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name} ({candidate.id})
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {voice ? <Generator key={voice.id} voice={voice} /> : null}
    </Page>
  );
}

function Generator(props: { voice: PlaygroundVoice }) {
  const { voice } = props;
  const [text, setText] = useState('');
  const [routeId, setRouteId] = useState('');
  const [format, setFormat] = useState<PlaygroundFormat>('opus');
  const [speedOn, setSpeedOn] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [busy, setBusy] = useState<'generate' | 'auto-tag'>();
  const [error, setError] = useState<string>();
  const [warnings, setWarnings] = useState<string[]>([]);
  const [latest, setLatest] = useState<Generation>();
  const history = useLoad(
    () =>
      call<{ generations: Generation[] }>(
        'GET',
        `/voices/${encodeURIComponent(voice.id)}/generations?limit=5`,
      ).then((answer) => answer.generations),
    [voice.id],
  );

  const offered = voice.output_formats;
  const readyRoutes = voice.routes.filter((route) => route.state === 'ready');
  const defaultSupportsTags = voice.capabilities.includes('voice_tags');
  useEffect(() => {
    const usableFormat = PLAYGROUND_FORMATS.find((option) => offered.includes(option.wire));
    if (usableFormat && !offered.includes(wireOf(format))) setFormat(usableFormat.id);
  }, [offered, format]);

  const run = async (kind: 'generate' | 'auto-tag', action: () => Promise<void>) => {
    setBusy(kind);
    setError(undefined);
    setWarnings([]);
    try {
      await action();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(undefined);
    }
  };

  const generate = (event: FormEvent) => {
    event.preventDefault();
    void run('generate', async () => {
      const answer = await call<{ generation: Generation; warnings: string[] }>(
        'POST',
        `/voices/${encodeURIComponent(voice.id)}/generations`,
        {
          text,
          output_format: format,
          ...(speedOn ? { speed } : {}),
          ...(routeId ? { route_id: routeId } : {}),
        },
      );
      setLatest(answer.generation);
      setWarnings(answer.warnings);
      history.reload();
    });
  };

  const autoTag = () =>
    void run('auto-tag', async () => {
      const answer = await call<{ text: string; warnings: string[] }>('POST', '/auto-tag', {
        text,
        voice_id: voice.id,
        ...(routeId ? { route_id: routeId } : {}),
      });
      setText(answer.text);
      setWarnings(answer.warnings);
    });

  return (
    <form className="form-grid playground" onSubmit={generate}>
      {readyRoutes.length > 1 ? (
        <label>
          Route
          <select value={routeId} onChange={(event) => setRouteId(event.target.value)}>
            <option value="">Default route</option>
            {readyRoutes.map((route) => (
              <option key={route.id} value={route.id}>
                {route.provider} · {route.model ?? 'built-in'}
                {route.is_default ? ' (default)' : ''}
                {route.enabled ? '' : ' (disabled)'}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <TagTextArea value={text} onChange={setText} />
      {!routeId && !defaultSupportsTags && HAS_TAG.test(text) ? (
        <Notice kind="warning">
          This voice’s default route does not support tags: they will be skipped.
        </Notice>
      ) : null}
      <fieldset className="choices">
        <legend>Output format</legend>
        {PLAYGROUND_FORMATS.map((option) => {
          const available = offered.includes(option.wire);
          return (
            <label
              key={option.id}
              className="checkbox"
              title={available ? option.wire : 'This voice does not offer this format'}
            >
              <input
                type="radio"
                name="format"
                value={option.id}
                checked={format === option.id}
                disabled={!available}
                onChange={() => setFormat(option.id)}
              />
              {option.label}
            </label>
          );
        })}
      </fieldset>
      <div className="choices">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={speedOn}
            onChange={(event) => setSpeedOn(event.target.checked)}
          />
          Speed override
        </label>
        <input
          type="range"
          aria-label="Speed"
          min={0.5}
          max={2}
          step={0.05}
          value={speed}
          disabled={!speedOn}
          onChange={(event) => setSpeed(Number(event.target.value))}
        />
        <span className={speedOn ? '' : 'muted'}>{speed.toFixed(2)}×</span>
      </div>
      <div className="choices">
        <button type="button" disabled={busy !== undefined || text.trim() === ''} onClick={autoTag}>
          {busy === 'auto-tag' ? 'Tagging…' : 'Auto Tag'}
        </button>
        <button
          type="submit"
          className="primary"
          disabled={busy !== undefined || text.trim() === ''}
        >
          {busy === 'generate' ? 'Generating…' : 'Generate'}
        </button>
      </div>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {warnings.map((warning) => (
        <Notice key={warning} kind="warning">
          {WARNINGS[warning] ?? warning}
        </Notice>
      ))}
      {latest ? <GenerationCard generation={latest} autoPlay /> : null}
      <h2>Recent generations</h2>
      <p className="muted">
        {voice.routes.length > 0 ? (
          <>
            Every generation is kept in the voice’s{' '}
            <a {...linkProps(`/voices/${encodeURIComponent(voice.id)}`)}>History</a>.
          </>
        ) : (
          'Every generation of this built-in voice is kept; the latest are listed here.'
        )}
      </p>
      {history.error ? <Notice kind="error">{history.error}</Notice> : null}
      {(history.data ?? [])
        .filter((generation) => generation.id !== latest?.id)
        .map((generation) => (
          <GenerationCard key={generation.id} generation={generation} />
        ))}
    </form>
  );
}

function wireOf(format: PlaygroundFormat): string {
  return PLAYGROUND_FORMATS.find((option) => option.id === format)?.wire ?? format;
}

function GenerationCard(props: { generation: Generation; autoPlay?: boolean }) {
  const { generation } = props;
  return (
    <div className="card generation" data-generation-id={generation.id}>
      <div className="generation-text">{generation.text}</div>
      {/* biome-ignore lint/a11y/useMediaCaption: generated speech has no caption track */}
      <audio controls src={generation.audio_url} autoPlay={props.autoPlay} preload="metadata" />
      <div className="muted">
        {generation.output_format} · {(generation.duration_ms / 1000).toFixed(1)} s ·{' '}
        {generation.charge_credits} credits · {generation.provider}
        {generation.model ? ` ${generation.model}` : ''}
        {generation.speed !== null ? ` · speed ${generation.speed}` : ''} · {generation.created_by}{' '}
        · {formatTime(generation.created_at)}
      </div>
    </div>
  );
}

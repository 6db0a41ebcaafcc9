import { type FormEvent, useState } from 'react';
import { Notice } from '../../components.tsx';
import type { ProviderAccount } from '../../types.ts';
import {
  CreateButton,
  missingForCreate,
  PermissionCheckbox,
  ProviderChoice,
  TranscriptCounter,
  useCreateVoice,
} from './clone-form.tsx';
import { RECORDING_LIMITS } from './models.ts';
import { clock, useRecorder } from './recorder.ts';
import { RECORDING_SCRIPTS, SCRIPT_SECONDS } from './scripts.ts';

/**
 * Record: the speaker reads a short script into the microphone; the take is played back
 * and uploaded with the script as its exact transcript and the script's language.
 */
export function RecordTab(props: {
  accounts: ProviderAccount[] | undefined;
  accountsError: string | undefined;
}) {
  const form = useCreateVoice(props.accounts);
  const recorder = useRecorder();
  const [language, setLanguage] = useState(RECORDING_SCRIPTS[0]?.language ?? 'en-US');
  const script = RECORDING_SCRIPTS.find((entry) => entry.language === language);
  const take = recorder.take;
  const tooShort = take !== undefined && take.durationMs < RECORDING_LIMITS.minDurationMs;

  const recordings = take ? 1 : 0;
  const missing = missingForCreate({
    name: form.name,
    targets: form.targets,
    recordings,
    withTranscript: recordings,
    permission: form.permission,
  });
  if (tooShort) missing.push('a take of at least one second');
  if (recorder.state !== 'idle') missing.push('the end of the take');

  const chooseLanguage = (next: string) => {
    // A take belongs to the script it was read from.
    recorder.discard();
    setLanguage(next);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!take || !script || missing.length > 0) return;
    void form.submit([
      {
        file: take.blob,
        fileName: take.fileName,
        language: script.language,
        transcript: script.text,
      },
    ]);
  };

  const recording = recorder.state === 'recording';
  return (
    <form className="form-grid" onSubmit={submit}>
      <label>
        Voice name
        <input
          name="name"
          maxLength={100}
          value={form.name}
          onChange={(event) => form.setName(event.target.value)}
        />
      </label>
      <label>
        Script language
        <select
          name="script-language"
          value={language}
          disabled={recorder.state !== 'idle'}
          onChange={(event) => chooseLanguage(event.target.value)}
        >
          {RECORDING_SCRIPTS.map((entry) => (
            <option key={entry.language} value={entry.language}>
              {entry.name}
            </option>
          ))}
        </select>
      </label>
      <div className="script-card">
        <div className="muted fine-print">
          Read this aloud at a natural pace (about {SCRIPT_SECONDS} seconds). It is saved as the
          recording’s transcript, so read it exactly as written.
        </div>
        <blockquote className="script" lang={script?.language} data-testid="script">
          {script?.text}
        </blockquote>
        <div className="recorder">
          {recording ? (
            <button type="button" className="danger" onClick={recorder.stop}>
              Stop
            </button>
          ) : (
            <button
              type="button"
              className="primary"
              disabled={recorder.state === 'starting' || form.busy}
              onClick={() => void recorder.start()}
            >
              {take ? 'Record again' : 'Start recording'}
            </button>
          )}
          <span className={recording ? 'timer timer-live' : 'timer'} data-testid="timer">
            {recording ? '● ' : ''}
            {clock(recorder.elapsedMs)} / about {clock(SCRIPT_SECONDS * 1000)}
          </span>
        </div>
        {take && !recording ? (
          <div className="take">
            <span className="muted fine-print">Your take ({clock(take.durationMs)}):</span>
            {/* biome-ignore lint/a11y/useMediaCaption: a speaker's own recording has no captions */}
            <audio controls src={take.url} data-testid="take" />
          </div>
        ) : null}
      </div>
      {recorder.error ? <Notice kind="error">{recorder.error}</Notice> : null}
      {tooShort ? (
        <Notice kind="warning">
          The take is shorter than one second; record the whole script again.
        </Notice>
      ) : null}
      <div>
        <TranscriptCounter withTranscript={recordings} recordings={recordings} />
      </div>
      <ProviderChoice
        value={form.targets}
        onChange={form.setTargets}
        accounts={props.accounts}
        accountsError={props.accountsError}
      />
      <PermissionCheckbox checked={form.permission} onChange={form.setPermission} />
      {form.error ? <Notice kind="error">{form.error}</Notice> : null}
      <CreateButton missing={missing} busy={form.busy} />
    </form>
  );
}

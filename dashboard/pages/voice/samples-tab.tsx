import { type FormEvent, useState } from 'react';
import { call } from '../../api.ts';
import { formatTime, Notice } from '../../components.tsx';
import type { Voice, VoiceSample } from '../../types.ts';
import { useAction, voicePath } from './use-action.ts';

/** A duration in seconds with one decimal. */
function formatDuration(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Samples: the voice's recordings with their language, exact transcript and who confirmed
 * the speaker's permission, each playable; Owner and Admin add a recording, which turns
 * Ready routes into Update available.
 */
export function SamplesTab(props: {
  voice: Voice;
  samples: VoiceSample[];
  canManage: boolean;
  onChanged: () => void;
}) {
  const { voice, samples } = props;
  return (
    <>
      <table className="samples-table">
        <thead>
          <tr>
            <th>Recording</th>
            <th>Language</th>
            <th>Transcript</th>
            <th>Duration</th>
            <th>Permission confirmed</th>
            <th>Listen</th>
          </tr>
        </thead>
        <tbody>
          {samples.map((sample) => (
            <tr key={sample.id} data-sample-id={sample.id}>
              <td>{sample.file_name}</td>
              <td>{sample.language}</td>
              <td className="transcript">{sample.transcript}</td>
              <td>{formatDuration(sample.duration_ms)}</td>
              <td>
                {sample.permission_confirmed_by}
                <div className="muted">{formatTime(sample.permission_confirmed_at)}</div>
              </td>
              <td>
                {/* biome-ignore lint/a11y/useMediaCaption: a voice sample; its transcript is beside it */}
                <audio
                  controls
                  preload="none"
                  src={`/operator/api${voicePath(voice.id, `/samples/${encodeURIComponent(sample.id)}/audio`)}`}
                />
              </td>
            </tr>
          ))}
          {samples.length === 0 ? (
            <tr>
              <td colSpan={6} className="muted">
                No recordings yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {props.canManage ? <AddRecording voice={voice} onAdded={props.onChanged} /> : null}
    </>
  );
}

/** Adds one recording with its language, exact transcript and the speaker's permission. */
function AddRecording(props: { voice: Voice; onAdded: () => void }) {
  const [file, setFile] = useState<File>();
  const [language, setLanguage] = useState('');
  const [transcript, setTranscript] = useState('');
  const [permission, setPermission] = useState(false);
  const [added, setAdded] = useState<{ name: string; readyRoutes: boolean }>();
  // A new key empties the file input after an upload.
  const [formKey, setFormKey] = useState(0);
  const action = useAction(props.onAdded);
  const complete =
    file !== undefined && language.trim() !== '' && transcript.trim() !== '' && permission;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file || !complete) return;
    const form = new FormData();
    form.set(
      'metadata',
      JSON.stringify({
        language: language.trim(),
        transcript: transcript.trim(),
        permission_confirmed: true,
      }),
    );
    form.set('recording', file, file.name);
    // Ready routes become Update available with the new recording (spec rule 8).
    const readyRoutes = props.voice.routes.some((route) => route.state === 'ready');
    const ok = await action.run(() => call('POST', voicePath(props.voice.id, '/samples'), form));
    if (ok) {
      setAdded({ name: file.name, readyRoutes });
      setFile(undefined);
      setTranscript('');
      setPermission(false);
      setFormKey((key) => key + 1);
    }
  };

  return (
    <form className="card form-grid add-recording" onSubmit={submit} key={formKey}>
      <h2>Add recording</h2>
      <label>
        Recording
        <input
          type="file"
          name="recording"
          accept="audio/*"
          onChange={(event) => setFile(event.target.files?.[0])}
        />
      </label>
      <label>
        Language
        <input
          name="language"
          placeholder="en-US"
          maxLength={35}
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
        />
      </label>
      <label>
        Exact transcript
        <textarea
          name="transcript"
          maxLength={5000}
          placeholder="Every word spoken in the recording, as spoken."
          value={transcript}
          onChange={(event) => setTranscript(event.target.value)}
        />
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          name="permission"
          checked={permission}
          onChange={(event) => setPermission(event.target.checked)}
        />
        I confirm the speaker has given permission to clone their voice from this recording.
      </label>
      {action.error ? <Notice kind="error">{action.error}</Notice> : null}
      {added ? (
        <Notice kind="success" onDismiss={() => setAdded(undefined)}>
          Recording “{added.name}” added.
          {added.readyRoutes
            ? ' Ready routes are now Update available: refresh them on the Routes tab (Refresh, or Clone to providers) to use it.'
            : ''}
        </Notice>
      ) : null}
      <div>
        <button type="submit" className="primary" disabled={!complete || action.busy}>
          Add
        </button>
      </div>
    </form>
  );
}

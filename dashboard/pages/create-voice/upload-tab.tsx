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
import {
  ACCEPTED_EXTENSIONS,
  RECORDING_LIMITS,
  recordingType,
  SPOKEN_LANGUAGES,
} from './models.ts';

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Upload: a voice from recordings on disk. The spoken language and the exact transcript
 * go with the first recording; further chosen files are named so they can be added on the
 * voice's Samples tab once it exists (spec rule 5).
 */
export function UploadTab(props: {
  accounts: ProviderAccount[] | undefined;
  accountsError: string | undefined;
}) {
  const form = useCreateVoice(props.accounts);
  const [language, setLanguage] = useState('en-US');
  const [files, setFiles] = useState<File[]>([]);
  const [transcript, setTranscript] = useState('');

  const first = files[0];
  const others = files.slice(1);
  const firstType = first ? recordingType(first) : undefined;
  const problem = !first
    ? undefined
    : firstType === undefined
      ? `${first.name} is not a recording the service accepts (${ACCEPTED_EXTENSIONS}).`
      : first.size > RECORDING_LIMITS.maxBytes
        ? `${first.name} is ${megabytes(first.size)}; a recording may be at most ${megabytes(RECORDING_LIMITS.maxBytes)}.`
        : undefined;
  const recordings = first ? 1 : 0;
  const withTranscript = first && transcript.trim() !== '' ? 1 : 0;
  const missing = missingForCreate({
    name: form.name,
    targets: form.targets,
    recordings,
    withTranscript,
    permission: form.permission,
  });
  if (problem) missing.push('a recording the service accepts');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!first || !firstType || missing.length > 0) return;
    void form.submit([
      {
        file: first.slice(0, first.size, firstType),
        fileName: first.name,
        language,
        transcript,
      },
    ]);
  };

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
        Spoken language
        <select
          name="language"
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
        >
          {SPOKEN_LANGUAGES.map((entry) => (
            <option key={entry.tag} value={entry.tag}>
              {entry.name} ({entry.tag})
            </option>
          ))}
        </select>
      </label>
      <label>
        Recordings
        <input
          type="file"
          name="recordings"
          accept="audio/*"
          multiple
          onChange={(event) => setFiles(Array.from(event.target.files ?? []))}
        />
        <span className="muted fine-print">
          {ACCEPTED_EXTENSIONS}; 1 second to 5 minutes and at most{' '}
          {megabytes(RECORDING_LIMITS.maxBytes)} each; clear speech of one speaker.
        </span>
      </label>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {others.length > 0 ? (
        <Notice kind="warning">
          <div>
            Only the first recording, <strong>{first?.name}</strong>, is created with the transcript
            below. Add the others on the voice’s Samples tab once it is created, each with its own
            transcript:
            <ul className="later-files" data-testid="later-recordings">
              {others.map((file, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: two chosen files may share a name
                <li key={`${file.name}-${index}`}>{file.name}</li>
              ))}
            </ul>
          </div>
        </Notice>
      ) : null}
      <label>
        {first ? `Exact transcript of ${first.name}` : 'Exact transcript'}
        <textarea
          name="transcript"
          maxLength={5000}
          placeholder="Every word the recording says, as spoken."
          value={transcript}
          onChange={(event) => setTranscript(event.target.value)}
        />
      </label>
      <div>
        <TranscriptCounter withTranscript={withTranscript} recordings={recordings} />
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

import { type FormEvent, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { Notice } from '../../components.tsx';
import type { Agent, AgentVoice } from './agent-types.ts';

/** Slugs as `/v1/agents` accepts them: lower-case letters, digits and inner hyphens. */
const SLUG_PATTERN = '[a-z0-9]([a-z0-9\\-]{0,62}[a-z0-9])?';

/**
 * The Create form: slug, display name, voice (one clients of this environment can use),
 * description and instructions. The Agent starts as a draft; Publish makes it live.
 */
export function CreateAgentForm(props: {
  voices: readonly AgentVoice[];
  onCreated: (agent: Agent) => void;
}) {
  const [slug, setSlug] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [voiceId, setVoiceId] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const voice = voiceId || props.voices[0]?.id || '';

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<{ agent: Agent }>('POST', '/agents', {
        slug: slug.trim(),
        voice_id: voice,
        ...(displayName.trim() ? { display_name: displayName.trim() } : {}),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(instructions.trim() ? { instructions: instructions.trim() } : {}),
      });
      setSlug('');
      setDisplayName('');
      setDescription('');
      setInstructions('');
      props.onCreated(answer.agent);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form-grid agent-form" aria-label="Create Agent" onSubmit={create}>
      <h2>Create Agent</h2>
      <div className="agent-form-row">
        <label>
          Slug
          <input
            name="slug"
            required
            maxLength={64}
            pattern={SLUG_PATTERN}
            title="Lower-case letters, digits and inner hyphens"
            value={slug}
            onChange={(event) => setSlug(event.target.value)}
          />
        </label>
        <label>
          Display name
          <input
            name="display_name"
            maxLength={200}
            value={displayName}
            onChange={(event) => setDisplayName(event.target.value)}
          />
        </label>
      </div>
      <label>
        Voice
        <select
          name="voice_id"
          required
          value={voice}
          onChange={(event) => setVoiceId(event.target.value)}
        >
          {props.voices.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Description
        <input
          name="description"
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
      </label>
      <label>
        Instructions
        <textarea
          name="instructions"
          rows={4}
          value={instructions}
          onChange={(event) => setInstructions(event.target.value)}
        />
      </label>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div>
        <button
          type="submit"
          className="primary"
          disabled={busy || slug.trim() === '' || voice === ''}
        >
          Create Agent
        </button>
      </div>
    </form>
  );
}

import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { Notice } from '../../components.tsx';
import { type AgentFormValues, formValuesOf, patchOf } from './agent-edits.ts';
import type { Agent, AgentAvatar, AgentVoice, LlmProviderOption } from './agent-types.ts';
import { AvatarField } from './avatar-field.tsx';
import { CardFields } from './card-fields.tsx';
import { ModelFields } from './model-fields.tsx';

/**
 * The Edit Agent form: voice, language model, feature switches, avatar and the character card.
 * Save sends one `PATCH /operator/api/agents/{id}` with what changed (a changed card is
 * sent whole) and makes a new draft revision. Without `canEdit` every control is disabled
 * and there is no Save. Mount it again (a new `key`) to start from a newer Agent.
 */
export function EditAgentForm(props: {
  agent: Agent;
  voices: readonly AgentVoice[];
  providers: readonly LlmProviderOption[];
  avatars: readonly AgentAvatar[];
  canEdit: boolean;
  onSaved: (agent: Omit<Agent, 'api_ready'>) => void;
  /** Told whether the form holds changes that are not saved. */
  onDirtyChange?: (dirty: boolean) => void;
}) {
  const { agent, onDirtyChange } = props;
  const initial = useMemo(() => formValuesOf(agent), [agent]);
  const [values, setValues] = useState<AgentFormValues>(initial);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const patch = patchOf(agent, initial, values);
  const dirty = Object.keys(patch).length > 0;

  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<{ agent: Omit<Agent, 'api_ready'> }>(
        'PATCH',
        `/agents/${encodeURIComponent(agent.id)}`,
        patch,
      );
      // Stays busy: the page mounts the form again for the new revision once it is read.
      props.onSaved(answer.agent);
    } catch (caught) {
      setError(`The Agent was not saved: ${describeError(caught)}`);
      setBusy(false);
    }
  };

  return (
    <form className="form-grid agent-form agent-edit-form" aria-label="Edit Agent" onSubmit={save}>
      <h2>Edit Agent</h2>
      <fieldset className="agent-edit-controls" disabled={!props.canEdit}>
        <ModelFields
          values={values}
          voices={props.voices}
          providers={props.providers}
          onChange={setValues}
        />
        <AvatarField
          value={values.avatarId}
          avatars={props.avatars}
          onChange={(avatarId) => setValues({ ...values, avatarId })}
        />
        <CardFields
          card={agent.character_card.data}
          values={values.card}
          onChange={(card) => setValues({ ...values, card })}
        />
      </fieldset>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {props.canEdit ? (
        <div className="agent-actions">
          <button type="submit" className="primary" disabled={busy || !dirty}>
            Save
          </button>
          <button
            type="button"
            disabled={busy || !dirty}
            onClick={() => {
              setValues(initial);
              setError(undefined);
            }}
          >
            Discard changes
          </button>
          <span className="muted">
            {dirty ? 'Saving makes a new draft revision.' : 'No unsaved changes.'}
          </span>
        </div>
      ) : null}
    </form>
  );
}

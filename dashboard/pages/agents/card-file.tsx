import { useId, useState } from 'react';
import { call, describeError } from '../../api.ts';
import type { Agent } from './agent-types.ts';

/**
 * The Agent's character card as a file: Import replaces the card from a V3, V2 or V1 JSON
 * file or a PNG card image (a new draft revision); Export downloads the draft's card as JSON
 * or as a PNG card image. Import waits while the form holds unsaved changes.
 */
export function CardFile(props: {
  agent: Agent;
  canEdit: boolean;
  dirty: boolean;
  onImported: (agent: Omit<Agent, 'api_ready'>) => void;
  onError: (message: string) => void;
}) {
  const inputId = useId();
  const [busy, setBusy] = useState(false);
  const base = `/operator/api/agents/${encodeURIComponent(props.agent.id)}/character-card`;

  const upload = async (file: File) => {
    setBusy(true);
    try {
      const answer = await call<{ agent: Omit<Agent, 'api_ready'> }>(
        'POST',
        `/agents/${encodeURIComponent(props.agent.id)}/character-card`,
        file,
      );
      props.onImported(answer.agent);
    } catch (caught) {
      props.onError(`The card was not imported: ${describeError(caught)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="agent-card-file" aria-label="Character card file">
      <h2>Character card file</h2>
      <div className="agent-actions">
        {props.canEdit ? (
          <label htmlFor={inputId} className="agent-card-import">
            Import card file
            <input
              id={inputId}
              type="file"
              accept=".json,.png,application/json,image/png"
              disabled={busy || props.dirty}
              onChange={(event) => {
                const file = event.target.files?.[0];
                event.target.value = '';
                if (file) void upload(file);
              }}
            />
          </label>
        ) : null}
        <a className="button" href={`${base}?format=json`} download>
          Export JSON
        </a>
        <a className="button" href={`${base}?format=png`} download>
          Export PNG
        </a>
        <span className="muted">
          {props.canEdit && props.dirty
            ? 'Save or discard the changes before importing a card.'
            : 'Character Card V3, V2 or V1 (JSON), or a PNG card image.'}
        </span>
      </div>
    </section>
  );
}

import { useId } from 'react';
import type { AgentAvatar } from './agent-types.ts';

/** The Agent's avatar: a built-in one, shown by its preview; a stored id no longer offered stays, marked. */
export function AvatarField(props: {
  value: string;
  avatars: readonly AgentAvatar[];
  onChange: (avatarId: string) => void;
}) {
  const id = useId();
  const chosen = props.avatars.find((avatar) => avatar.id === props.value);
  return (
    <div className="agent-field agent-avatar-field">
      <label htmlFor={id}>Avatar</label>
      <div className="agent-avatar-row">
        {chosen ? <img className="agent-avatar" src={chosen.image_url} alt={chosen.name} /> : null}
        <select
          id={id}
          name="avatar_id"
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        >
          {chosen ? null : <option value={props.value}>{props.value} (not offered)</option>}
          {props.avatars.map((avatar) => (
            <option key={avatar.id} value={avatar.id}>
              {avatar.name}
            </option>
          ))}
        </select>
      </div>
      <p className="muted agent-hint">The face clients show for the Agent during a session.</p>
    </div>
  );
}

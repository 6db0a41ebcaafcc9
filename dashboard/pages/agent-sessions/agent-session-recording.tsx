import { call } from '../../api.ts';
import { Notice } from '../../components.tsx';
import { hasRole, useOperatorSession } from '../../operator-session.ts';
import { RECORDING_MANAGER_ROLES } from '../../types.ts';
import { useAction } from '../voice/use-action.ts';
import { type AgentSession, formatDuration } from './agent-session-types.ts';

/**
 * A session's recording: played and downloaded from the operator API (the `/v1` address in
 * `recording.url` needs a workspace key), and deleted by an Owner or Admin. A session that
 * ended without one says so; one still running says nothing yet.
 */
export function AgentSessionRecording(props: { session: AgentSession; onDeleted: () => void }) {
  const { session } = props;
  const me = useOperatorSession();
  const remove = useAction(props.onDeleted);
  const ended = session.state === 'ended' || session.state === 'failed';
  if (!session.recording) {
    return ended ? (
      <section className="session-recording">
        <h2>Recording</h2>
        <p className="muted">Not recorded</p>
      </section>
    ) : null;
  }
  const url = `/operator/api/agent-sessions/${encodeURIComponent(session.session_id)}/recording`;
  const deleteRecording = () => {
    if (!window.confirm('Delete the recording of this session? It cannot be recovered.')) return;
    void remove.run(() =>
      call('DELETE', `/agent-sessions/${encodeURIComponent(session.session_id)}/recording`),
    );
  };
  return (
    <section className="session-recording">
      <h2>Recording</h2>
      {remove.error ? (
        <Notice kind="error" onDismiss={remove.clearError}>
          The recording was not deleted: {remove.error}
        </Notice>
      ) : null}
      {/* biome-ignore lint/a11y/useMediaCaption: the session's transcript is on this page */}
      <audio controls preload="none" src={url} />
      <p>
        <span data-recording="length">{formatDuration(session.recording.duration_seconds)}</span>
        <span className="muted"> · Stereo: the user on the left, the Agent on the right</span>
      </p>
      <p className="session-recording-actions">
        <a href={url} download={`session-${session.session_id}.ogg`}>
          Download
        </a>
        {hasRole(me, RECORDING_MANAGER_ROLES) ? (
          <button type="button" className="danger" disabled={remove.busy} onClick={deleteRecording}>
            Delete recording
          </button>
        ) : null}
      </p>
    </section>
  );
}

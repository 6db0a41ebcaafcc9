/**
 * Names of docs/agent-protocol.md: the LiveKit text-stream topics, participant attributes and
 * remote-call (RPC) methods through which the agent worker and the client SDK talk in a
 * conversation room. `lk.*` names are LiveKit's own conventions; `awp.*` names are ours.
 */

/** Agent -> user: live transcription segments (LiveKit's convention). */
export const TOPIC_TRANSCRIPTION = 'lk.transcription';
/** Agent -> user: a finalized turn with its durable message id. */
export const TOPIC_TRANSCRIPT = 'awp.transcript';
/** Agent -> user: the Agent chose not to answer a turn. */
export const TOPIC_DECLINED = 'awp.declined';
/** Agent -> user: a failure the user should see (its api error code and detail). */
export const TOPIC_ERROR = 'awp.error';
/** User -> agent: a typed message (LiveKit's chat convention). */
export const TOPIC_CHAT = 'lk.chat';

/** Transcription segment attributes (LiveKit's convention). */
export const ATTR_SEGMENT_ID = 'lk.segment_id';
export const ATTR_TRANSCRIPTION_FINAL = 'lk.transcription_final';
export const ATTR_TRANSCRIBED_TRACK_ID = 'lk.transcribed_track_id';
/** The Agent participant's state: listening, thinking, speaking (LiveKit's convention). */
export const ATTR_AGENT_STATE = 'lk.agent.state';
/** The Agent participant's input mode: `automatic` or `push-to-talk`. */
export const ATTR_INPUT_MODE = 'awp.input_mode';
/**
 * The Agent participant's end reason (`max_duration`, `user_removed`, ...), set just before
 * it leaves a session that is over. An Agent that leaves without it lost its job: the Agent
 * joins again from a new job (under that job's identity, see {@link agentIdentity}), and
 * the client waits for it.
 */
export const ATTR_SESSION_ENDED = 'awp.session_ended';
/** On a typed message: `'false'` asks for a text-only answer. */
export const ATTR_AUDIO_RESPONSE = 'awp.audio_response';

/** Remote calls the Agent participant answers. */
export const RPC_PTT_START = 'awp.ptt.start';
export const RPC_PTT_COMMIT = 'awp.ptt.commit';
export const RPC_PTT_CANCEL = 'awp.ptt.cancel';
export const RPC_INPUT_MODE = 'awp.input_mode';
export const RPC_INTERRUPT = 'awp.interrupt';

/** How the user's turns end: by pause detection or by the push-to-talk calls. */
export type InputMode = 'push-to-talk' | 'automatic';

/** Identity prefix of the Agent participant (`agent-<session_id>`). */
export const AGENT_IDENTITY_PREFIX = 'agent-';

/**
 * The Agent participant's identity in the room of session `sessionId`, as its job of
 * generation `epoch` joins it: `agent-<session_id>` for the session's first job, and
 * `agent-<session_id>-<epoch>` for a job that resumed it after a lost one. Each job has its
 * own, so a lost job's participant that LiveKit removes late never takes the new one with it.
 */
export function agentIdentity(sessionId: string, epoch = 0): string {
  const base = `${AGENT_IDENTITY_PREFIX}${sessionId}`;
  return epoch === 0 ? base : `${base}-${epoch}`;
}

/** Whether `identity` is the Agent of session `sessionId`, from any of its jobs. */
export function isAgentIdentityOf(identity: string, sessionId: string): boolean {
  const base = `${AGENT_IDENTITY_PREFIX}${sessionId}`;
  if (identity === base) return true;
  return identity.startsWith(`${base}-`) && /^[1-9][0-9]*$/.test(identity.slice(base.length + 1));
}

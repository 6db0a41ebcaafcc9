// Names of docs/agent-protocol.md, the contract between the api, the worker and this library.

export const TOPIC_TRANSCRIPTION = 'lk.transcription';
export const TOPIC_TRANSCRIPT = 'awp.transcript';
export const TOPIC_DECLINED = 'awp.declined';
export const TOPIC_ERROR = 'awp.error';
export const TOPIC_CHAT = 'lk.chat';

export const ATTR_SEGMENT_ID = 'lk.segment_id';
export const ATTR_TRANSCRIPTION_FINAL = 'lk.transcription_final';
export const ATTR_TRANSCRIBED_TRACK_ID = 'lk.transcribed_track_id';
export const ATTR_AGENT_STATE = 'lk.agent.state';
export const ATTR_INPUT_MODE = 'awp.input_mode';
export const ATTR_AUDIO_RESPONSE = 'awp.audio_response';

export const RPC_PTT_START = 'awp.ptt.start';
export const RPC_PTT_COMMIT = 'awp.ptt.commit';
export const RPC_PTT_CANCEL = 'awp.ptt.cancel';
export const RPC_INPUT_MODE = 'awp.input_mode';
export const RPC_INTERRUPT = 'awp.interrupt';

/** Identity prefix of the Agent participant (`agent-<session_id>`). */
export const AGENT_IDENTITY_PREFIX = 'agent-';

import type {
  StreamingSession,
  StreamingSessionEvent,
  StreamingSessionEventList,
  StreamingSessionList,
} from '../../../backend-sdk/src/types/streaming-sessions.ts';

// A streaming session's wire shape is the server library's.
export type {
  StreamingSession,
  StreamingSessionEvent,
  StreamingSessionEventList,
  StreamingSessionList,
};

/** What a role without access to the sessions is told. */
export const STREAMING_ROLE_NOTICE =
  'Streaming sessions and their usage are for an organization Owner, Admin or Builder.';

import type { RequestJson, ResponseJson } from './openapi.ts';

/** A client's playback session (`/v1/streaming-sessions`). */
export type StreamingSession = ResponseJson<'getStreamingSession', 200>;

export type StreamingSessionList = ResponseJson<'listStreamingSessions', 200>;

/** A playback event to report. */
export type StreamingSessionEventInput =
  RequestJson<'appendStreamingSessionEvents'>['events'][number];

export type StreamingSessionEventList = ResponseJson<'listStreamingSessionEvents', 200>;

export type StreamingSessionEvent = StreamingSessionEventList['events'][number];

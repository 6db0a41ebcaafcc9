/**
 * Browser conversation client for managed Agents: `ConversationClient` over WebRTC
 * (LiveKit); realtime transcription: `TranscriptionClient` (also alone, without LiveKit, as
 * `@awp/client-sdk/transcription`). React bindings: the `@awp/react` package.
 *
 * @packageDocumentation
 */
export { defaultApiOrigin } from './api-origin.ts';
export { VERSION } from './constants.ts';
export { ConversationClient } from './conversation-client.ts';
export {
  type ApiErrorCode,
  ConversationError,
  type ConversationErrorCode,
  type ConversationErrorInit,
  type LibraryErrorCode,
} from './errors.ts';
export type {
  AgentSpeakingEvent,
  ConversationEventMap,
  ConversationEventName,
  ConversationListener,
  DeclinedEvent,
  RemoteAudioTrackEvent,
  TranscriptEvent,
  TranscriptProgressEvent,
  TranscriptRole,
} from './events.ts';
export type {
  BackendSessionOptions,
  CharacterCard,
  CharacterCardData,
  ConnectOptions,
  ConversationClientOptions,
  SendTextOptions,
  SessionContext,
  SessionOverrides,
  SessionTokenResult,
  TokenSessionOptions,
} from './options.ts';
export type {
  AgentState,
  ConnectionState,
  ConversationSession,
  InputMode,
  SessionStartResponse,
} from './session.ts';
export type {
  TranscriptionApiErrorCode,
  TranscriptionClientOptions,
  TranscriptionConnectionState,
  TranscriptionCost,
  TranscriptionEndpointing,
  TranscriptionErrorCode,
  TranscriptionErrorInit,
  TranscriptionEventMap,
  TranscriptionEventName,
  TranscriptionLibraryErrorCode,
  TranscriptionListener,
  TranscriptionResult,
  TranscriptionStarted,
  TranscriptionStartOptions,
  TranscriptionTokenResult,
  TranscriptionTranscript,
} from './transcription/index.ts';
export {
  PCM_CAPTURE_PROCESSOR,
  PCM_CAPTURE_WORKLET_SOURCE,
  TranscriptionClient,
  TranscriptionError,
} from './transcription/index.ts';

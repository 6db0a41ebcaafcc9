/**
 * Browser conversation client for managed Agents: `ConversationClient` over WebRTC
 * (LiveKit). React bindings: `@awp/client-sdk/react`.
 *
 * @packageDocumentation
 */
export { DEFAULT_API_ORIGIN, VERSION } from './constants.ts';
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
  ConnectOptions,
  ConversationClientOptions,
  SendTextOptions,
  SessionContext,
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

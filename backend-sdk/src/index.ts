/**
 * Server SDK for customer backends: the typed REST client of the whole `/v1` API, TTS
 * streaming and realtime transcription with `for await`, one-shot synthesis with its audit
 * headers, token minting, application sessions (start, the data-only connection, callbacks
 * and commands), webhook endpoints with the verification of what they receive, streaming
 * sessions, Agent memories and documents, and end users' Google Calendar connections.
 *
 * @packageDocumentation
 */
export * from './application/index.ts';
export { AwpClient } from './client.ts';
export * from './errors.ts';
export type { ClientOptions, RequestOptions } from './options.ts';
export { AgentDocuments } from './resources/agent-documents.ts';
export { AgentSessions } from './resources/agent-sessions.ts';
export { Agents } from './resources/agents.ts';
export { GoogleCalendar } from './resources/google-calendar.ts';
export { AgentMemories } from './resources/memories.ts';
export type { MessageStreamEvent } from './resources/message-stream.ts';
export { Models } from './resources/models.ts';
export { StreamingSessions } from './resources/streaming-sessions.ts';
export { Tokens } from './resources/tokens.ts';
export { Transcription, TranscriptionSessions } from './resources/transcription.ts';
export {
  Translation,
  type TranslationPreviewEvent,
  type TranslationPreviewRequest,
} from './resources/translation.ts';
export { Tts } from './resources/tts.ts';
export { Avatars, Voices } from './resources/voices.ts';
export {
  type WebhookDeliveryList,
  type WebhookDeliveryListQuery,
  type WebhookEndpointList,
  type WebhookSecret,
  Webhooks,
} from './resources/webhooks.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.ts';
export {
  TranscriptionStream,
  type TranscriptionStreamOptions,
} from './transcription/stream.ts';
export { TtsStream, type TtsStreamOptions } from './tts/stream.ts';
export type * from './types/agents.ts';
export type * from './types/documents.ts';
export type * from './types/google-calendar.ts';
export type * from './types/memories.ts';
export type * from './types/messages.ts';
export type * from './types/models.ts';
export type * from './types/openapi.ts';
export type * from './types/sessions.ts';
export type * from './types/streaming-sessions.ts';
export type * from './types/transcription.ts';
export type * from './types/tts.ts';
export type * from './types/voices.ts';
export type * from './types/webhooks.ts';
export { VERSION } from './version.ts';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks-verify.ts';

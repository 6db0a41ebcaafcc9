/**
 * Realtime transcription in the browser: `TranscriptionClient` over the api's
 * `/v1/realtime-transcription` WebSocket. This entry (`@awp/client-sdk/transcription`) does
 * not load livekit-client; the package root exports the same names.
 *
 * @packageDocumentation
 */
export { defaultApiOrigin } from '../api-origin.ts';
export { VERSION } from '../constants.ts';
export {
  type TranscriptionApiErrorCode,
  TranscriptionError,
  type TranscriptionErrorCode,
  type TranscriptionErrorInit,
  type TranscriptionLibraryErrorCode,
} from './errors.ts';
export type {
  TranscriptionConnectionState,
  TranscriptionCost,
  TranscriptionEndpointing,
  TranscriptionEventMap,
  TranscriptionEventName,
  TranscriptionListener,
  TranscriptionResult,
  TranscriptionStarted,
  TranscriptionTranscript,
} from './events.ts';
export type {
  TranscriptionClientOptions,
  TranscriptionStartOptions,
  TranscriptionTokenResult,
} from './options.ts';
export { TranscriptionClient } from './transcription-client.ts';
export { PCM_CAPTURE_PROCESSOR, PCM_CAPTURE_WORKLET_SOURCE } from './worklet-source.ts';

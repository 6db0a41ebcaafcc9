export {
  ConcurrencyLimiter,
  type ConcurrencyLimiterStats,
} from './concurrency-limiter.ts';
export { type ApiKeySource, redactSecret, resolveApiKey } from './credentials.ts';
export {
  UpstreamHttpClient,
  type UpstreamHttpClientOptions,
  type UpstreamRequest,
  UpstreamResponse,
  UpstreamTransportError,
  type UpstreamTransportFailure,
} from './http-client.ts';
export type { UpstreamLogger } from './logger.ts';
export { chooseSampleRate, type UpstreamModelInfo } from './model-info.ts';
export { PcmAligner } from './pcm-aligner.ts';
export { streamUpstreamPcm, type UpstreamPcmCall, type VendorErrorInfo } from './pcm-stream.ts';
export { failureForStatus, type UpstreamErrorDetails, UpstreamProviderError } from './status.ts';
export { codePointCount, splitText } from './text-split.ts';
export { DEFAULT_UPSTREAM_TIMEOUTS, resolveTimeouts, type UpstreamTimeouts } from './timeouts.ts';
export { sanitizeVoiceTag, sanitizeVoiceTags } from './voice-tags.ts';

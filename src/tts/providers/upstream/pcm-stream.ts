import type { SynthesisChunk } from '../alignment.ts';
import { redactSecret } from './credentials.ts';
import {
  type UpstreamHttpClient,
  type UpstreamRequest,
  type UpstreamResponse,
  UpstreamTransportError,
} from './http-client.ts';
import type { UpstreamLogger } from './logger.ts';
import { PcmAligner } from './pcm-aligner.ts';
import { failureForStatus, UpstreamProviderError } from './status.ts';

/** What a vendor's error body said, as far as an adapter can tell. */
export interface VendorErrorInfo {
  /** Machine-readable code (`invalid_api_key`, `quota_exceeded`), if any. */
  readonly code?: string | undefined;
  /** Human-readable message, if any. */
  readonly message?: string | undefined;
}

/** The vendor-specific parts of {@link streamUpstreamPcm}. */
export interface UpstreamPcmCall {
  /** Provider name for messages and logs. */
  readonly provider: string;
  readonly client: UpstreamHttpClient;
  readonly request: UpstreamRequest;
  /** Rate of the raw s16le mono PCM the request asks for. */
  readonly sampleRateHz: number;
  /** The API key in use, only to scrub it from vendor text. */
  readonly apiKey: string;
  /** Reads the vendor's error body format. */
  readonly parseError: (status: number, body: string) => VendorErrorInfo;
  /** Request id to log when the vendor returns none (for example a `traceparent` we sent). */
  readonly fallbackRequestId?: string | undefined;
  readonly logger?: UpstreamLogger | undefined;
  /**
   * Reads a successful answer that is not raw PCM (audio in JSON lines with timings);
   * default: the body is the PCM.
   */
  readonly readBody?: (body: AsyncIterable<Buffer>) => AsyncIterable<SynthesisChunk>;
}

/** Longest vendor message kept in an error message. */
const MAX_VENDOR_MESSAGE_CHARS = 300;

/**
 * Sends one synthesis request whose successful answer is raw s16le mono PCM at
 * `call.sampleRateHz` and yields it as it arrives, in whole samples.
 *
 * - Non-2xx answers throw {@link UpstreamProviderError} with the failure kind of
 *   {@link failureForStatus}; 401/402/403 also log an operator-visible warning.
 * - Timeouts, resets, a body cut short (also mid-sample) and an empty body throw
 *   `unavailable`, even after audio was yielded, so a stream never ends silently short.
 * - Abort (or breaking out of the loop) destroys the connection at once; an abort throws
 *   `signal.reason`.
 */
export async function* streamUpstreamPcm(
  call: UpstreamPcmCall,
  signal: AbortSignal,
): AsyncGenerator<SynthesisChunk, void, undefined> {
  const response = await send(call, signal);
  const requestId = response.requestId ?? call.fallbackRequestId;
  let bytes = 0;
  try {
    if (response.status < 200 || response.status > 299) {
      throw await statusError(call, response, requestId, signal);
    }
    const aligner = new PcmAligner();
    const chunks =
      call.readBody?.(response.body()) ?? rawPcm(response.body(), aligner, call.sampleRateHz);
    try {
      for await (const chunk of chunks) {
        bytes += chunk.data.byteLength;
        yield chunk;
        signal.throwIfAborted();
      }
    } catch (error) {
      throw transportError(call, error, requestId, signal, bytes);
    }
    if (aligner.pendingBytes !== 0) {
      throw new UpstreamProviderError(
        'unavailable',
        `${call.provider} audio ended inside a sample (${bytes + aligner.pendingBytes} bytes)`,
        { provider: call.provider, status: response.status, upstreamRequestId: requestId },
      );
    }
    if (bytes === 0) {
      throw new UpstreamProviderError('unavailable', `${call.provider} returned no audio`, {
        provider: call.provider,
        status: response.status,
        upstreamRequestId: requestId,
      });
    }
    call.logger?.debug?.(
      { provider: call.provider, upstreamRequestId: requestId, audioBytes: bytes },
      'upstream synthesis finished',
    );
  } finally {
    response.close();
  }
}

async function send(call: UpstreamPcmCall, signal: AbortSignal): Promise<UpstreamResponse> {
  try {
    return await call.client.send(call.request, signal);
  } catch (error) {
    throw transportError(call, error, call.fallbackRequestId, signal, 0);
  }
}

function transportError(
  call: UpstreamPcmCall,
  error: unknown,
  requestId: string | undefined,
  signal: AbortSignal,
  audioBytes: number,
): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof UpstreamProviderError) return error;
  if (!(error instanceof UpstreamTransportError)) return error;
  const after = audioBytes > 0 ? ` after ${audioBytes} bytes of audio` : '';
  call.logger?.debug?.(
    { provider: call.provider, upstreamRequestId: requestId, kind: error.kind, audioBytes },
    'upstream synthesis failed',
  );
  return new UpstreamProviderError(
    'unavailable',
    `${call.provider} request failed${after}: ${error.message}`,
    { provider: call.provider, upstreamRequestId: requestId, cause: error },
  );
}

async function statusError(
  call: UpstreamPcmCall,
  response: UpstreamResponse,
  requestId: string | undefined,
  signal: AbortSignal,
): Promise<unknown> {
  let body = '';
  try {
    body = await response.text();
  } catch {
    if (signal.aborted) return signal.reason;
    // The status alone decides the failure; a body lost to a reset changes nothing.
  }
  const status = response.status;
  const failure = failureForStatus(status);
  const info = safeParse(call, status, body);
  const vendorMessage =
    info.message === undefined
      ? ''
      : `: ${redactSecret(info.message, call.apiKey).slice(0, MAX_VENDOR_MESSAGE_CHARS)}`;
  const vendorCode =
    info.code === undefined ? undefined : redactSecret(info.code, call.apiKey).slice(0, 100);
  const fields = {
    provider: call.provider,
    status,
    vendorCode,
    upstreamRequestId: requestId,
  };
  if (failure === 'auth_rejected') {
    call.logger?.warn(
      fields,
      `${call.provider} refused the account (HTTP ${status}${vendorCode === undefined ? '' : ` ${vendorCode}`}); check the API key, its permissions and the account balance`,
    );
  } else {
    call.logger?.debug?.(fields, 'upstream synthesis refused');
  }
  const code = vendorCode === undefined ? '' : ` ${vendorCode}`;
  return new UpstreamProviderError(
    failure,
    `${call.provider} answered HTTP ${status}${code}${vendorMessage}`,
    { provider: call.provider, status, vendorCode, upstreamRequestId: requestId },
  );
}

function safeParse(call: UpstreamPcmCall, status: number, body: string): VendorErrorInfo {
  try {
    return call.parseError(status, body);
  } catch {
    return {};
  }
}

/** The body as PCM in whole samples. */
async function* rawPcm(
  body: AsyncIterable<Buffer>,
  aligner: PcmAligner,
  sampleRateHz: number,
): AsyncGenerator<SynthesisChunk> {
  for await (const received of body) {
    const data = aligner.push(received);
    if (data.byteLength > 0) yield { data, sampleRateHz };
  }
}

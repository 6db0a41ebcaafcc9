import { MediaError } from '../../media/errors.ts';
import { getOutputFormatInfo, type OutputFormat } from '../../media/formats.ts';
import { pcmDurationMs } from '../../media/pcm.ts';
import { ApiError } from '../errors.ts';
import type { ResolvedRoute } from '../voices/catalog.ts';
import type { AlignmentGranularity, SynthesisChunk } from './providers/alignment.ts';
import { ProviderError } from './providers/errors.ts';

export interface SegmentRequest {
  route: ResolvedRoute;
  text: string;
  voiceTags: readonly string[];
  speed?: number | undefined;
  /** The format the audio is delivered in: it decides the PCM rate asked of the engine. */
  format: OutputFormat;
  /** Timings asked for with the audio; only routes that can give them serve. */
  alignment?: AlignmentGranularity | undefined;
}

/** Running totals of what the provider produced, for the ledger and `usage`. */
export class ProviderUsage {
  audioMs = 0;
}

/**
 * PCM of one text segment from the route's provider, counting the provider audio it
 * produced into `usage`.
 */
export async function* synthesizeSegment(
  segment: SegmentRequest,
  usage: ProviderUsage,
  signal: AbortSignal,
): AsyncIterable<SynthesisChunk> {
  const { route } = segment;
  const source = route.provider.synthesize(
    {
      text: segment.text,
      providerVoiceId: route.providerVoiceId,
      ...(route.model === undefined ? {} : { model: route.model }),
      ...(segment.speed === undefined ? {} : { speed: segment.speed }),
      ...(segment.voiceTags.length > 0 ? { voiceTags: segment.voiceTags } : {}),
      ...(segment.alignment === undefined ? {} : { alignment: segment.alignment }),
      preferredSampleRateHz: getOutputFormatInfo(segment.format).sourceRateHz(
        route.provider.nativeSampleRateHz,
      ),
    },
    signal,
  );
  for await (const chunk of source) {
    usage.audioMs += pcmDurationMs(chunk.data.byteLength, chunk.sampleRateHz);
    yield chunk;
  }
}

/** The public error for a synthesis failure; internal detail stays in the log. */
export function synthesisFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ProviderError) return error.toApiError();
  if (error instanceof MediaError) {
    return new ApiError('internal_error', 'Audio encoding failed; retry with a new request.', {
      cause: error,
    });
  }
  return new ApiError('internal_error', 'Synthesis failed; retry with a new request.', {
    cause: error,
  });
}

import type { OutputFormat } from '../../../media/formats.ts';
import type { PcmChunk } from '../../../media/pcm.ts';
import { ApiError } from '../../errors.ts';
import { alignedAudio } from '../alignment/tap.ts';
import type { AlignmentTimeline } from '../alignment/timeline.ts';
import type { RouteFailover } from '../failover.ts';
import type { AlignmentGranularity } from '../providers/alignment.ts';
import type { ProviderUsage } from '../synthesize.ts';
import { codePointLength } from '../tags.ts';

/** One streaming request's segments and where their PCM goes. */
export interface SpeakSegmentsInput {
  /** Flushed text, in order; ends after `stop`. */
  segments: AsyncIterable<string>;
  failover: RouteFailover;
  voiceTags: string[] | undefined;
  speed: number | undefined;
  format: OutputFormat;
  /** With alignment on: the granularity, and the timeline the segments' timings go to. */
  alignment?: { granularity: AlignmentGranularity; timeline: AlignmentTimeline } | undefined;
  usage: ProviderUsage;
  signal: AbortSignal;
  /** Takes each PCM chunk, waiting while the encoder is behind. */
  write(chunk: PcmChunk): Promise<void>;
  /** A segment was spoken in full: its speakable characters. */
  spoken(chars: number): void;
}

/**
 * Synthesizes each flushed segment in turn into `write`, prepared for the route serving
 * the request. A flushed segment with nothing speakable in it (only cues or punctuation)
 * is skipped; a tag-only request on a voice without tags fails, and so does a request
 * where nothing was speakable at all.
 */
export async function speakSegments(input: SpeakSegmentsInput): Promise<void> {
  const { signal } = input;
  let spoken = false;
  for await (const segment of input.segments) {
    try {
      input.failover.prepare(segment, input.voiceTags);
    } catch (error) {
      if (segment === '') throw error;
      continue;
    }
    const pcm = input.failover.synthesize(
      {
        text: segment,
        voiceTags: input.voiceTags ?? [],
        speed: input.speed,
        format: input.format,
        alignment: input.alignment?.granularity,
      },
      input.usage,
      signal,
    );
    const audio = input.alignment
      ? alignedAudio(pcm, input.alignment.timeline, () => input.failover.prepared?.text ?? segment)
      : pcm;
    for await (const chunk of audio) await input.write(chunk);
    signal.throwIfAborted();
    input.spoken(codePointLength(input.failover.prepared?.text ?? ''));
    spoken = true;
  }
  signal.throwIfAborted();
  if (!spoken) {
    throw new ApiError(
      'invalid_request',
      'Nothing speakable remains once unsupported voice cues are removed.',
    );
  }
}

import type { PcmChunk } from '../../../media/pcm.ts';
import type { SynthesisChunk } from '../providers/alignment.ts';
import type { AlignmentTimeline } from './timeline.ts';

/**
 * The audio of one segment, its timings taken into `timeline` on the way (chunks that
 * carry only timings are not passed on). `spokenText` is the text the serving route was
 * given, known from its first chunk on.
 */
export async function* alignedAudio(
  chunks: AsyncIterable<SynthesisChunk>,
  timeline: AlignmentTimeline,
  spokenText: () => string,
): AsyncGenerator<PcmChunk> {
  for await (const chunk of chunks) {
    timeline.add(chunk, spokenText());
    if (chunk.data.byteLength > 0) yield chunk;
  }
  timeline.endSegment();
}

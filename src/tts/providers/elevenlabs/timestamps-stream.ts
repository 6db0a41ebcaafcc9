import type { AlignmentGranularity, SynthesisChunk, TextTiming } from '../alignment.ts';
import { codePointOffsets } from '../alignment.ts';
import { CharTimingMapper } from '../upstream/char-alignment.ts';
import { PcmAligner } from '../upstream/pcm-aligner.ts';
import { UpstreamProviderError } from '../upstream/status.ts';

/** One line of `/stream/with-timestamps`: audio and the alignment of its characters. */
interface TimestampsLine {
  audio_base64?: string | null;
  alignment?: {
    characters?: string[];
    character_start_times_seconds?: number[];
    character_end_times_seconds?: number[];
  } | null;
}

/** Where one upstream request's text sits in the text the provider was given. */
export interface SentPart {
  /** UTF-16 offset of the part in the provider's text. */
  readonly textStart: number;
  /** The part as sent. */
  readonly part: string;
  /** Code points sent before the part (the inline cue prefix), which carry no text. */
  readonly prefixChars: number;
  /** Seconds of audio of the earlier parts: this part's times start there. */
  readonly offsetS: number;
}

/**
 * Reads ElevenLabs' `POST /v1/text-to-speech/{voice_id}/stream/with-timestamps` answer:
 * one JSON object per line, `{audio_base64, alignment: {characters,
 * character_start_times_seconds, character_end_times_seconds}, normalized_alignment}`,
 * character times in seconds from the start of the request's audio. Yields the PCM with
 * the timings (`granularity`) the characters complete, offsets mapped onto the provider's
 * text (`alignment` is of the text as sent; `normalized_alignment`, of the text as the
 * vendor normalized it, is not used).
 */
export async function* timestampsPcm(
  body: AsyncIterable<Buffer>,
  sent: SentPart,
  text: string,
  granularity: AlignmentGranularity,
  sampleRateHz: number,
  provider: string,
): AsyncGenerator<SynthesisChunk> {
  const mapper = new CharTimingMapper(text, granularity);
  const offsets = codePointOffsets(sent.part);
  const pcm = new PcmAligner();
  let characterIndex = 0;
  let pending = '';
  const utf8 = new TextDecoder();
  const decode = (line: string): SynthesisChunk | undefined => {
    if (line.trim() === '') return undefined;
    let parsed: TimestampsLine;
    try {
      parsed = JSON.parse(line) as TimestampsLine;
    } catch (error) {
      throw new UpstreamProviderError('unavailable', `${provider} sent a line that is not JSON`, {
        provider,
        cause: error,
      });
    }
    const data = pcm.push(Buffer.from(parsed.audio_base64 ?? '', 'base64'));
    const chars: TextTiming[] = [];
    const alignment = parsed.alignment;
    const characters = alignment?.characters ?? [];
    for (const [index, character] of characters.entries()) {
      // The vendor counts characters as code points of the text as sent, prefix first.
      const point = characterIndex - sent.prefixChars;
      characterIndex += [...character].length;
      if (point < 0 || point >= offsets.length - 1) continue;
      chars.push({
        textStart: sent.textStart + offsets[point]!,
        textEnd:
          sent.textStart + offsets[Math.min(point + [...character].length, offsets.length - 1)]!,
        startS: sent.offsetS + (alignment?.character_start_times_seconds?.[index] ?? 0),
        endS: sent.offsetS + (alignment?.character_end_times_seconds?.[index] ?? 0),
      });
    }
    const timings = mapper.push(chars);
    return { data, sampleRateHz, ...(timings.length > 0 ? { timings } : {}) };
  };
  for await (const bytes of body) {
    pending += utf8.decode(bytes, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const chunk = decode(line);
      if (chunk && (chunk.data.byteLength > 0 || chunk.timings)) yield chunk;
    }
  }
  const last = decode(pending + utf8.decode());
  if (last && (last.data.byteLength > 0 || last.timings)) yield last;
  const rest = mapper.finish();
  if (rest.length > 0) yield { data: Buffer.alloc(0), sampleRateHz, timings: rest };
}

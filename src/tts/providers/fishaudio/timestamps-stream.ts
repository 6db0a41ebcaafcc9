import type { SynthesisChunk, TextTiming } from '../alignment.ts';
import { PcmAligner } from '../upstream/pcm-aligner.ts';
import { UpstreamProviderError } from '../upstream/status.ts';
import { type VendorWordSegment, WordSegmentMapper } from '../upstream/word-segments.ts';

/** The alignment snapshot of one text chunk, as Fish sends it. */
interface FishAlignment {
  segments?: { text?: unknown; start?: unknown; end?: unknown }[] | null;
  audio_duration?: unknown;
}

/** The JSON of one SSE `data:` of `/v1/tts/stream/with-timestamp`. */
interface FishTimestampsEvent {
  audio_base64?: string | null;
  alignment?: FishAlignment | null;
  chunk_seq?: unknown;
  chunk_audio_offset_sec?: unknown;
}

/** The latest snapshot of the text chunk being spoken. */
interface OpenChunk {
  readonly seq: number;
  /** Seconds of the request's audio before the chunk, when Fish said so. */
  readonly offsetS: number | undefined;
  alignment: FishAlignment;
}

/**
 * Fish's word segments, a text chunk at a time: each chunk's latest snapshot replaces the
 * one before (Fish revises a chunk's segments as more audio is rendered), and a chunk's
 * words are final once a snapshot of a later chunk arrives, or at the end of the stream.
 * Segment times are seconds from the chunk's start; the chunk starts at
 * `chunk_audio_offset_sec`, or, when Fish leaves it out, where the earlier chunks'
 * `audio_duration`s end. Without `chunk_seq` each alignment is the one of a new chunk.
 */
class FishChunkTimeline {
  readonly #mapper: WordSegmentMapper;
  #open: OpenChunk | undefined;
  #lastSeq = -1;
  /** The sum of the closed chunks' `audio_duration`s. */
  #durationS = 0;

  constructor(text: string) {
    this.#mapper = new WordSegmentMapper(text);
  }

  /** The timings made final by one event's alignment. */
  push(event: FishTimestampsEvent): TextTiming[] {
    const alignment = event.alignment;
    if (alignment === null || alignment === undefined) return [];
    // Without `chunk_seq` (the answer's older form) every alignment is a new chunk's.
    const seq =
      typeof event.chunk_seq === 'number'
        ? event.chunk_seq
        : Math.max(this.#lastSeq, this.#open?.seq ?? -1) + 1;
    // A late revision of a chunk already handed out cannot be taken back.
    if (seq <= this.#lastSeq) return [];
    if (this.#open !== undefined && this.#open.seq === seq) {
      this.#open.alignment = alignment;
      return [];
    }
    const done = this.#close();
    const offset = event.chunk_audio_offset_sec;
    this.#open = { seq, offsetS: typeof offset === 'number' ? offset : undefined, alignment };
    return done;
  }

  /** Every timing not yet handed out. */
  finish(): TextTiming[] {
    return [...this.#close(), ...this.#mapper.finish()];
  }

  #close(): TextTiming[] {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return [];
    this.#lastSeq = open.seq;
    const offsetS = open.offsetS ?? this.#durationS;
    const duration = open.alignment.audio_duration;
    this.#durationS = offsetS + (typeof duration === 'number' ? duration : 0);
    const segments: VendorWordSegment[] = [];
    for (const segment of open.alignment.segments ?? []) {
      const { text, start, end } = segment;
      if (typeof text !== 'string' || typeof start !== 'number' || typeof end !== 'number') {
        continue;
      }
      segments.push({ text, startS: offsetS + start, endS: offsetS + end });
    }
    // A text chunk ends at a word boundary: its last word is complete.
    return [...this.#mapper.push(segments), ...this.#mapper.endWord()];
  }
}

/** The `data:` payloads of the complete SSE events in `block` (events end at a blank line). */
function eventData(block: string): string | undefined {
  const data = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  return data.length === 0 ? undefined : data.join('\n');
}

/**
 * Reads Fish Audio's `POST /v1/tts/stream/with-timestamp` answer, a Server-Sent Events
 * stream whose every event is JSON `{audio_base64, content, alignment: {segments: [{text,
 * start, end}], audio_duration} | null, chunk_seq, chunk_audio_offset_sec}`. Yields the
 * PCM (`format: "pcm"`, at `sampleRateHz`) in whole samples, with the timings of the
 * words of `text` (the provider's text) as they become final.
 */
export async function* fishTimestampsPcm(
  body: AsyncIterable<Buffer>,
  text: string,
  sampleRateHz: number,
  provider: string,
): AsyncGenerator<SynthesisChunk> {
  const timeline = new FishChunkTimeline(text);
  const pcm = new PcmAligner();
  const utf8 = new TextDecoder();
  let pending = '';
  const decode = (block: string): SynthesisChunk | undefined => {
    const data = eventData(block);
    if (data === undefined) return undefined;
    let event: FishTimestampsEvent;
    try {
      event = JSON.parse(data) as FishTimestampsEvent;
    } catch (error) {
      throw new UpstreamProviderError('unavailable', `${provider} sent an event that is not JSON`, {
        provider,
        cause: error,
      });
    }
    const audio = pcm.push(Buffer.from(event.audio_base64 ?? '', 'base64'));
    const timings = timeline.push(event);
    if (audio.byteLength === 0 && timings.length === 0) return undefined;
    return { data: audio, sampleRateHz, ...(timings.length > 0 ? { timings } : {}) };
  };
  for await (const bytes of body) {
    // A CR LF may straddle two reads: normalized on the joined text.
    pending = (pending + utf8.decode(bytes, { stream: true })).replace(/\r\n/g, '\n');
    const blocks = pending.split('\n\n');
    pending = blocks.pop() ?? '';
    for (const block of blocks) {
      const chunk = decode(block);
      if (chunk) yield chunk;
    }
  }
  const last = decode(pending + utf8.decode());
  if (last) yield last;
  const rest = timeline.finish();
  if (rest.length > 0) yield { data: Buffer.alloc(0), sampleRateHz, timings: rest };
}

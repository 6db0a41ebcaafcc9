/** One word segment of the fake's alignment, in seconds from the start of the audio. */
export interface FakeWordSegment {
  /** The word as Fish reports it: without punctuation, a typographic apostrophe made plain. */
  readonly text: string;
  readonly startS: number;
  readonly endS: number;
}

/** One text chunk (a sentence) of the fake's alignment. */
export interface FakeTextChunk {
  readonly content: string;
  readonly startS: number;
  readonly endS: number;
  readonly segments: readonly FakeWordSegment[];
}

/** Leading inline cues (`[warm] `), which Fish does not time. */
const LEADING_CUES = /^(\[[^\]]*\]\s*)+/u;

/**
 * The fake's word alignment of `text` over `totalSamples` of audio. Code point `i` of `n`
 * spans `[i, i + 1] * duration / n`; a sentence (ending in `.`, `!` or `?`) is one text
 * chunk, from its first code point to the next sentence's; a word spans its code points
 * without outer punctuation. Leading cues are neither timed nor part of a chunk's content.
 */
export function fakeFishChunks(
  text: string,
  totalSamples: number,
  sampleRateHz: number,
): FakeTextChunk[] {
  const points = Array.from(text);
  const perPointS = totalSamples / sampleRateHz / points.length;
  const firstPoint = Array.from(text.match(LEADING_CUES)?.[0] ?? '').length;
  const chunks: FakeTextChunk[] = [];
  let start = firstPoint;
  for (let at = firstPoint; at <= points.length; at++) {
    const ends =
      at === points.length || (/[.!?]/u.test(points[at - 1] ?? '') && points[at] === ' ');
    if (!ends || at === start) continue;
    const sentence = points.slice(start, at);
    const segments: FakeWordSegment[] = [];
    for (const match of sentence.join('').matchAll(/\S+/gu)) {
      const word = match[0].replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '');
      if (word === '') continue;
      const lead =
        Array.from(match[0]).length - Array.from(match[0].replace(/^[\p{P}\p{S}]+/u, '')).length;
      const first = start + Array.from(sentence.join('').slice(0, match.index)).length + lead;
      segments.push({
        text: word.replaceAll('’', "'"),
        startS: first * perPointS,
        endS: (first + Array.from(word).length) * perPointS,
      });
    }
    chunks.push({
      content: sentence.join('').trim(),
      startS: start * perPointS,
      endS: at * perPointS,
      segments,
    });
    start = at;
  }
  return chunks;
}

/**
 * The SSE events of `/v1/tts/stream/with-timestamp` for one piece of the audio, as Fish
 * documents them: for every text chunk the piece reaches, an event with the chunk's
 * cumulative snapshot (segments that started before the piece ends, times from the chunk's
 * start; a segment still being spoken ends where the piece ends, revised by a later
 * snapshot), its `chunk_seq` and `chunk_audio_offset_sec`. The first event carries the
 * piece's audio, the others an empty `audio_base64`; `alignment` is null before a chunk's
 * first word starts.
 */
export function fishTimestampEvents(
  text: string,
  piece: Buffer,
  firstSample: number,
  totalSamples: number,
  sampleRateHz: number,
): Buffer {
  const pieceStartS = firstSample / sampleRateHz;
  const last = firstSample + piece.byteLength / 2 >= totalSamples;
  const pieceEndS = last
    ? Number.POSITIVE_INFINITY
    : (firstSample + piece.byteLength / 2) / sampleRateHz;
  const chunks = fakeFishChunks(text, totalSamples, sampleRateHz)
    .map((chunk, seq) => ({ chunk, seq }))
    .filter(({ chunk }) => chunk.startS < pieceEndS && chunk.endS > pieceStartS);
  const events = (chunks.length === 0 ? [undefined] : chunks).map((entry, index) => {
    const audio = index === 0 ? piece.toString('base64') : '';
    if (entry === undefined) {
      return {
        audio_base64: audio,
        content: '',
        alignment: null,
        chunk_seq: 0,
        chunk_audio_offset_sec: 0,
      };
    }
    const { chunk, seq } = entry;
    const started = chunk.segments.filter((segment) => segment.startS < pieceEndS);
    const alignment =
      started.length === 0
        ? null
        : {
            segments: started.map((segment) => ({
              text: segment.text,
              start: segment.startS - chunk.startS,
              end: Math.min(segment.endS, pieceEndS) - chunk.startS,
            })),
            audio_duration: Math.min(chunk.endS, pieceEndS) - chunk.startS,
          };
    return {
      audio_base64: audio,
      content: chunk.content,
      alignment,
      chunk_seq: seq,
      chunk_audio_offset_sec: chunk.startS,
    };
  });
  return Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''), 'utf8');
}

import { getOutputFormatInfo, type OutputFormat } from '../../../media/formats.ts';
import type { AlignmentTimeline, PublicTiming } from '../alignment/timeline.ts';
import type { EventChannel } from './channel.ts';

/** Largest PCM payload of one `audio` event (about 0.7 s at 24 kHz). */
const MAX_PCM_EVENT_BYTES = 32 * 1024;

/** Where the `audio` events of one streaming request go, and who hears about each. */
export interface AudioEventTarget {
  channel: EventChannel;
  requestId: string;
  contextId: string | undefined;
  format: OutputFormat;
  /**
   * With alignment on: where the timings come from. Each `audio` event then carries
   * `timings`, those whose start its audio reaches, once known; timings known only after
   * the last audio go out on one last `audio` event without audio.
   */
  timeline?: AlignmentTimeline | undefined;
  /** True once the request ended: no further event is sent. */
  isEnded(): boolean;
  /** One piece went out as the `audio` event numbered `seq` (from 1). */
  sent(piece: Buffer, seq: number): void;
}

/**
 * Sends the encoded stream as `audio` events, numbered from 1, each waiting for the socket
 * to be writable. PCM is cut into event-sized pieces; encoded formats go out as the encoder
 * emits them. Returns early, sending nothing more, once the request has ended.
 */
export async function sendAudioEvents(
  output: AsyncIterable<Buffer>,
  pcm: boolean,
  target: AudioEventTarget,
): Promise<void> {
  const { channel, timeline } = target;
  const event = audioEventText(target);
  // Audio delivered so far, as a player of the stream will play it.
  const delivered = timeline && getOutputFormatInfo(target.format).createDurationCounter();
  let seq = 0;
  for await (const bytes of output) {
    for (const piece of pcm ? splitPcm(bytes) : [bytes]) {
      await channel.writable();
      if (target.isEnded()) return;
      seq += 1;
      delivered?.push(piece);
      const timings = delivered && timeline?.take(delivered.durationMs);
      channel.sendText(event(seq, piece, timings));
      target.sent(piece, seq);
    }
  }
  const rest = timeline?.takeAll() ?? [];
  if (rest.length === 0) return;
  await channel.writable();
  if (target.isEnded()) return;
  seq += 1;
  const empty = Buffer.alloc(0);
  channel.sendText(event(seq, empty, rest));
  target.sent(empty, seq);
}

/**
 * The `audio` event of one request as JSON text, exactly what `JSON.stringify` makes of
 * `{event, request_id, context_id?, seq, audio, format, timings?}`, without scanning the
 * base64 for characters to escape (it has none): for PCM that scan was most of an event's
 * cost. `timings` is there only when given (alignment on).
 */
export function audioEventText(
  target: Pick<AudioEventTarget, 'requestId' | 'contextId' | 'format'>,
): (seq: number, piece: Buffer, timings?: readonly PublicTiming[]) => string {
  const context =
    target.contextId === undefined ? '' : `,"context_id":${JSON.stringify(target.contextId)}`;
  const head = `{"event":"audio","request_id":${JSON.stringify(target.requestId)}${context},"seq":`;
  const tail = `","format":${JSON.stringify(target.format)}`;
  return (seq, piece, timings) =>
    `${head}${seq},"audio":"${piece.toString('base64')}${tail}${
      timings === undefined ? '' : `,"timings":${JSON.stringify(timings)}`
    }}`;
}

/** PCM in event-sized pieces, each a whole number of samples. */
function splitPcm(bytes: Buffer): Buffer[] {
  if (bytes.byteLength <= MAX_PCM_EVENT_BYTES) return [bytes];
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += MAX_PCM_EVENT_BYTES) {
    pieces.push(bytes.subarray(offset, offset + MAX_PCM_EVENT_BYTES));
  }
  return pieces;
}

import type { OutputFormat } from '../../../media/formats.ts';
import type { EventChannel } from './channel.ts';

/** Largest PCM payload of one `audio` event (about 0.7 s at 24 kHz). */
const MAX_PCM_EVENT_BYTES = 32 * 1024;

/** Where the `audio` events of one streaming request go, and who hears about each. */
export interface AudioEventTarget {
  channel: EventChannel;
  requestId: string;
  contextId: string | undefined;
  format: OutputFormat;
  /** True once the session ended: no further event is sent. */
  isEnded(): boolean;
  /** One piece went out as the `audio` event numbered `seq` (from 1). */
  sent(piece: Buffer, seq: number): void;
}

/**
 * Sends the encoded stream as `audio` events, numbered from 1, each waiting for the socket
 * to be writable. PCM is cut into event-sized pieces; encoded formats go out as the encoder
 * emits them. Returns early, sending nothing more, once the session has ended.
 */
export async function sendAudioEvents(
  output: AsyncIterable<Buffer>,
  pcm: boolean,
  target: AudioEventTarget,
): Promise<void> {
  const { channel, requestId, contextId, format } = target;
  let seq = 0;
  for await (const bytes of output) {
    for (const piece of pcm ? splitPcm(bytes) : [bytes]) {
      await channel.writable();
      if (target.isEnded()) return;
      seq += 1;
      channel.send({
        event: 'audio',
        request_id: requestId,
        ...(contextId === undefined ? {} : { context_id: contextId }),
        seq,
        audio: piece.toString('base64'),
        format,
      });
      target.sent(piece, seq);
    }
  }
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

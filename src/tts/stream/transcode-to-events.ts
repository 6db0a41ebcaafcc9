import type { OutputFormat } from '../../../media/formats.ts';
import { getOutputFormatInfo } from '../../../media/formats.ts';
import type { PcmChunk } from '../../../media/pcm.ts';
import type { TranscoderFactory } from '../../../media/transcode.ts';
import { type AudioEventTarget, sendAudioEvents } from './audio-events.ts';

/** What {@link transcodeToEvents} needs: where the PCM comes from and where events go. */
export interface TranscodeToEventsInput {
  transcoders: TranscoderFactory;
  format: OutputFormat;
  opusComplexity?: number | undefined;
  signal: AbortSignal;
  /** The `audio` events' target (channel, ids, hooks). */
  events: Omit<AudioEventTarget, 'format'>;
  /** Produces the PCM into `write`, which waits while the encoder is behind. */
  produce(write: (chunk: PcmChunk) => Promise<void>): Promise<void>;
}

/**
 * Runs one streaming request's audio path: PCM from `produce` through one transcoder (one
 * continuous encoded stream however many segments) out as numbered `audio` events. On a
 * failure the transcoder is aborted, the sending side has stopped, and the error is thrown.
 */
export async function transcodeToEvents(input: TranscodeToEventsInput): Promise<void> {
  const { format, signal } = input;
  const transcoder = input.transcoders(format, {
    signal,
    ...(input.opusComplexity === undefined ? {} : { opusComplexity: input.opusComplexity }),
  });
  const pcm = getOutputFormatInfo(format).codec === 'pcm';
  const sending = sendAudioEvents(transcoder.output, pcm, { ...input.events, format });
  // Sending fails on its own when synthesis is aborted; it is awaited below.
  sending.catch(() => {});
  try {
    await input.produce((chunk) => transcoder.write(chunk));
    await transcoder.end();
    await sending;
  } catch (error) {
    transcoder.abort(error);
    await sending.catch(() => {});
    throw error;
  }
}

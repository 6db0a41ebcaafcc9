import type { PcmChunk } from '../../../media/pcm.ts';
import { pcmDurationMs } from '../../../media/pcm.ts';

/** Everything a finished synthesis produced. */
export interface CollectedAudio {
  readonly chunks: readonly PcmChunk[];
  readonly pcm: Buffer;
  readonly sampleRateHz: number;
  readonly durationMs: number;
}

/** Reads an iterable of PCM chunks to the end. */
export async function collectAudio(stream: AsyncIterable<PcmChunk>): Promise<CollectedAudio> {
  const chunks: PcmChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return summarize(chunks);
}

export function summarize(chunks: readonly PcmChunk[]): CollectedAudio {
  const pcm = Buffer.concat(chunks.map((chunk) => chunk.data));
  const sampleRateHz = chunks[0]?.sampleRateHz ?? 0;
  return {
    chunks,
    pcm,
    sampleRateHz,
    durationMs: sampleRateHz === 0 ? 0 : pcmDurationMs(pcm.length, sampleRateHz),
  };
}

/** Root mean square of s16le samples, 0..32768. */
export function rms(pcm: Buffer): number {
  const samples = Math.floor(pcm.length / 2);
  if (samples === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples; i++) {
    const value = pcm.readInt16LE(i * 2);
    sum += value * value;
  }
  return Math.sqrt(sum / samples);
}

/** Largest absolute sample value of s16le PCM. */
export function peak(pcm: Buffer): number {
  let max = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) max = Math.max(max, Math.abs(pcm.readInt16LE(i)));
  return max;
}

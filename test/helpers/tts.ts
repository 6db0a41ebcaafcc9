import { decodeWithFfmpeg } from './audio.ts';

export interface DecodedAudio {
  sampleRateHz: number;
  channels: number;
  durationMs: number;
  /** RMS of the samples relative to full scale. */
  rms: number;
  pcm: Buffer;
}

function pcmRms(pcm: Buffer): number {
  const samples = pcm.byteLength >> 1;
  if (samples === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples; i++) {
    const value = pcm.readInt16LE(i * 2) / 32768;
    sum += value * value;
  }
  return Math.sqrt(sum / samples);
}

/** Decodes delivered audio as a client would: raw PCM by its format, the rest through ffmpeg. */
export async function decodeDelivered(format: string, audio: Buffer): Promise<DecodedAudio> {
  const pcmMatch = /^pcm_(\d+)$/.exec(format);
  if (pcmMatch) {
    const sampleRateHz = Number(pcmMatch[1]);
    return {
      sampleRateHz,
      channels: 1,
      durationMs: (audio.byteLength / 2 / sampleRateHz) * 1000,
      rms: pcmRms(audio),
      pcm: audio,
    };
  }
  const decoded = await decodeWithFfmpeg(audio, format.startsWith('opus') ? 'ogg' : 'aac');
  return {
    sampleRateHz: decoded.sampleRateHz,
    channels: decoded.channels,
    durationMs: (decoded.pcm.byteLength / 2 / decoded.channels / decoded.sampleRateHz) * 1000,
    rms: pcmRms(decoded.pcm),
    pcm: decoded.pcm,
  };
}

/** Words that would reveal an upstream provider, model or engine to a client. */
export const INTERNAL_NAMES = [
  /espeak/i,
  /\bnative\b/i,
  /elevenlabs/i,
  /fish ?audio/i,
  /eleven_/i,
  /en-us\+/i,
  /en-gb\+/i,
  /\bs1\b/i,
];

export function expectNoInternalNames(text: string): string[] {
  return INTERNAL_NAMES.filter((pattern) => pattern.test(text)).map(String);
}

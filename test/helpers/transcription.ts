import { createResampler } from '../../media/resample.ts';
import { speechPcm } from '../fakes/speech-audio.ts';
import { openStream, type ServerEvent, type StreamClient } from './stream.ts';

/** The realtime transcription URL of a server base URL (`http://127.0.0.1:PORT`). */
export function transcriptionUrl(baseUrl: string, token?: string): string {
  const url = new URL('/v1/realtime-transcription', baseUrl.replace(/^http/, 'ws'));
  if (token !== undefined) url.searchParams.set('token', token);
  return url.toString();
}

/** Opens `/v1/realtime-transcription` with a workspace key as bearer header. */
export function openTranscription(baseUrl: string, key: string): Promise<StreamClient> {
  return openStream(transcriptionUrl(baseUrl), { authorization: `Bearer ${key}` });
}

/** `ms` of silence as s16le mono PCM at `rateHz`. */
export function silence(ms: number, rateHz: number): Buffer {
  return Buffer.alloc(Math.round((ms * rateHz) / 1000) * 2);
}

/** espeak-ng speech of `text` as s16le mono PCM at `rateHz`. */
export function speech(text: string, rateHz: number): Promise<Buffer> {
  return speechPcm(text, rateHz);
}

/** Sends `pcm` as binary frames of `frameMs` (20 ms by default, as a microphone would). */
export function sendAudio(client: StreamClient, pcm: Buffer, rateHz: number, frameMs = 20): void {
  const frameBytes = Math.round((frameMs * rateHz) / 1000) * 2;
  for (let offset = 0; offset < pcm.byteLength; offset += frameBytes) {
    client.socket.send(pcm.subarray(offset, offset + frameBytes));
  }
}

/** Resamples s16le mono PCM (for audio at a rate other than espeak's cache holds). */
export async function resamplePcm(pcm: Buffer, fromHz: number, toHz: number): Promise<Buffer> {
  const resampler = await createResampler(fromHz, toHz);
  try {
    return Buffer.concat([resampler.push(pcm), resampler.flush()]);
  } finally {
    resampler.destroy();
  }
}

/** The final `transcript` events of a session, in order. */
export function finals(events: readonly ServerEvent[]): ServerEvent[] {
  return events.filter((e) => e.event === 'transcript' && e.final === true);
}

/** Milliseconds of s16le mono PCM at `rateHz`. */
export function pcmMs(pcm: Buffer, rateHz: number): number {
  return Math.round(((pcm.byteLength / 2) * 1000) / rateHz);
}

/** Cost in millicredits of `audioMs` at `creditsPerMinute`, as the service rounds it. */
export function expectedMillicredits(audioMs: number, creditsPerMinute: number): number {
  return Math.ceil((audioMs * creditsPerMinute * 1000) / 60_000);
}

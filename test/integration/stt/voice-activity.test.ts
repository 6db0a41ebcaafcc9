// The voice-activity worker thread with the real Silero model: speech and silence told
// apart in order, windows handed back with the samples they cover, and a model that cannot
// load failing the stream's owner instead of hanging it.
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SpeechDetector } from '../../../src/stt/vad/speech-detector.ts';
import { VoiceActivity } from '../../../src/stt/vad/voice-activity.ts';
import { speech } from '../../helpers/transcription.ts';

const logger = pino({ level: 'silent' });
const activity = new VoiceActivity(logger);

afterAll(() => activity.close());

describe('VoiceActivity', () => {
  it('finds one utterance in speech between silences, window by window', async () => {
    const pcm = await speech('What is the weather like today in Paris?', 16_000);
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
    const audio = new Int16Array(16_000 + samples.length + 16_000);
    audio.set(samples, 16_000);
    const detector = new SpeechDetector({ windowMs: 32 });
    const seen: Int16Array[] = [];
    const found: [string, number][] = [];
    const stream = await activity.open({
      window: (window, probability) => {
        const change = detector.push(probability);
        if (change) found.push([change, seen.length * 32]);
        seen.push(window);
      },
      failed: (error) => {
        throw error;
      },
    });
    for (let offset = 0; offset < audio.length; offset += 320) {
      stream.push(audio.subarray(offset, offset + 320));
    }
    await stream.drained();
    const tail = stream.takeTail();
    stream.close();
    // Every sample comes back once, in order: 512-sample windows and the rest.
    const back = new Int16Array(audio.length);
    let offset = 0;
    for (const window of [...seen, tail]) {
      back.set(window, offset);
      offset += window.length;
    }
    expect(offset).toBe(audio.length);
    expect(Buffer.from(back.buffer).equals(Buffer.from(audio.buffer))).toBe(true);
    expect(found.map(([change]) => change)).toEqual(['start', 'end']);
    const [[, startMs], [, endMs]] = found as [[string, number], [string, number]];
    const speechMs = (samples.length * 1000) / 16_000;
    expect(startMs).toBeGreaterThanOrEqual(1000);
    expect(startMs).toBeLessThan(1300);
    expect(endMs).toBeGreaterThan(1000 + speechMs - 300);
    expect(endMs).toBeLessThan(1000 + speechMs + 1000);
  });

  it('fails the stream when the model cannot be loaded', async () => {
    const broken = new VoiceActivity(logger, '/nonexistent/silero_vad.onnx');
    await expect(broken.open({ window: () => {}, failed: () => {} })).rejects.toThrow();
    await broken.close();
  });
});

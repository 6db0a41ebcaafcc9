// The agent worker's VAD: LiveKit's VAD interface over the real Silero model and the
// detector realtime transcription uses. Events come as LiveKit's Silero plugin sends them:
// one inference per 32 ms window with that window's audio at the input rate, the start of
// speech with a 500 ms lead-in, the end after more than 450 ms of silence with all the
// speech, and a flush that starts everything anew.
import { initializeLogger, type VADEvent, VADEventType, type VADStream } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { SileroVad } from '../../../src/stt/vad/livekit-vad.ts';
import { VoiceActivity } from '../../../src/stt/vad/voice-activity.ts';
import { silence, speech } from '../../helpers/transcription.ts';

const RATE = 48_000;
/** Input samples per 32 ms window at 48 kHz. */
const WINDOW = 1536;
const LEAD_IN = RATE / 2;

let vad: SileroVad;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'fatal' });
  vad = await SileroVad.load(pino({ level: 'silent' }), { minSilenceMs: 450 });
});

function samples(pcm: Buffer): Int16Array {
  const copy = Buffer.from(pcm);
  return new Int16Array(copy.buffer, copy.byteOffset, copy.byteLength / 2);
}

/** Pushes 48 kHz audio as 10 ms frames, as a LiveKit track delivers it. */
function pushAudio(stream: VADStream, audio: Int16Array): void {
  for (let offset = 0; offset < audio.length; offset += RATE / 100) {
    const data = audio.slice(offset, offset + RATE / 100);
    stream.pushFrame(new AudioFrame(data, RATE, 1, data.length));
  }
}

/** Reads the stream's events until `count` inference events have come. */
async function readInferences(stream: VADStream, count: number): Promise<VADEvent[]> {
  const events: VADEvent[] = [];
  let inferences = 0;
  while (inferences < count) {
    const { done, value } = await stream.next();
    if (done) break;
    events.push(value);
    if (value.type === VADEventType.INFERENCE_DONE) inferences++;
  }
  return events;
}

const windowsIn = (audio: Int16Array) => Math.floor(audio.length / WINDOW) - 1;
const speechEvents = (events: VADEvent[]) =>
  events.filter((e) => e.type !== VADEventType.INFERENCE_DONE);

describe('SileroVad (LiveKit VAD over the shared detector)', () => {
  it('reports every window, and one utterance with its lead-in, speech and silence', async () => {
    const words = samples(await speech('What is the weather like today in Paris?', RATE));
    const audio = samples(
      Buffer.concat([silence(1000, RATE), Buffer.from(words.buffer), silence(1200, RATE)]),
    );
    const stream = vad.stream();
    pushAudio(stream, audio);
    const events = await readInferences(stream, windowsIn(audio));
    stream.close();

    const inferences = events.filter((e) => e.type === VADEventType.INFERENCE_DONE);
    expect(inferences.map((e) => e.samplesIndex)).toEqual(inferences.map((_, i) => (i + 1) * 512));
    for (const event of inferences) {
      expect(event.frames.map((f) => [f.sampleRate, f.samplesPerChannel])).toEqual([
        [RATE, WINDOW],
      ]);
    }
    const [start, end] = speechEvents(events) as [VADEvent, VADEvent];
    expect(speechEvents(events).map((e) => VADEventType[e.type])).toEqual([
      'START_OF_SPEECH',
      'END_OF_SPEECH',
    ]);
    // Two windows of speech (64 ms, the first past 50 ms) start it, 1 s into the audio.
    expect([start.speaking, start.speechDuration, start.silenceDuration]).toEqual([true, 64, 0]);
    expect(start.samplesIndex).toBeGreaterThanOrEqual(16_000);
    expect(start.samplesIndex).toBeLessThan(16_000 + 16 * 512);
    expect(start.frames[0]?.samplesPerChannel).toBe(LEAD_IN + 2 * WINDOW);
    // 15 windows of silence (480 ms, the first past 450 ms) end it, with all the speech.
    expect([end.speaking, end.speechDuration, end.silenceDuration]).toEqual([false, 0, 480]);
    expect(end.frames[0]?.samplesPerChannel).toBe(
      LEAD_IN + ((end.samplesIndex - start.samplesIndex) / 512 + 2) * WINDOW,
    );
    expect(end.samplesIndex / 16).toBeGreaterThan(1000 + (words.length * 1000) / RATE - 300);
    // Inference events say whether the user is speaking, and for how long speech went on.
    const during = inferences.filter(
      (e) => e.samplesIndex > start.samplesIndex && e.samplesIndex <= end.samplesIndex,
    );
    expect(during.every((e) => e.speaking)).toBe(true);
    expect(during.at(-1)?.rawAccumulatedSilence).toBe(448);
    expect(vad.minSilenceDuration).toBe(450);
  });

  it('starts anew after a flush: the same audio starts speech at the same sample', async () => {
    const words = samples(
      Buffer.concat([silence(500, RATE), await speech('Hello there, my friend.', RATE)]),
    );
    const stream = vad.stream();
    pushAudio(stream, words);
    const first = await readInferences(stream, windowsIn(words));
    stream.flush();
    pushAudio(stream, words);
    const read = await readInferences(stream, windowsIn(words));
    stream.close();
    // Windows of the first pass still in flight at the flush are reported before it.
    const second = read.slice(
      read.findIndex((e) => e.type === VADEventType.INFERENCE_DONE && e.samplesIndex === 512),
    );

    const starts = [first, second].map((events) =>
      speechEvents(events).map((e) => [VADEventType[e.type], e.samplesIndex]),
    );
    expect(starts[0]).toHaveLength(1);
    expect(starts[1]).toEqual(starts[0]);
    expect(second.length).toBeGreaterThan(0);
  });

  it('ends a stream whose model cannot load, and closing it again does nothing', async () => {
    const logger = pino({ level: 'silent' });
    const broken = new SileroVad(new VoiceActivity(logger, '/nonexistent/silero_vad.onnx'), logger);
    const stream = broken.stream();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    stream.close();
  });
});

import { type VADEvent, VADEventType } from '@livekit/agents';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EARLY_START_PAUSE_MS as PAUSE_MS } from '../../../src/stt/config.ts';
import { SileroVad } from '../../../src/stt/vad/livekit-vad.ts';
import {
  EventWatchingVad,
  PauseTracker,
  vadWatchingPauses,
} from '../../../worker/models/vad-pauses.ts';

/** Silero's window. */
const WINDOW_MS = 32;

/**
 * The events Silero sends for a sequence of 32 ms windows (true: speech), with its
 * bookkeeping: INFERENCE_DONE carries the counts from before its window, start of speech
 * after 1 window of speech (minimum speech 32 ms), end of speech after `minSilenceMs`.
 */
function sileroEvents(windows: boolean[], minSilenceMs = 450): VADEvent[] {
  const events: VADEvent[] = [];
  let speaking = false;
  let silence = 0;
  let speech = 0;
  const event = (type: VADEventType, raw: boolean): VADEvent => ({
    type,
    samplesIndex: 0,
    timestamp: 0,
    speechDuration: 0,
    silenceDuration: 0,
    frames: [],
    probability: 0,
    inferenceDuration: 0,
    speaking,
    rawAccumulatedSilence: raw ? silence : 0,
    rawAccumulatedSpeech: raw ? speech : 0,
  });
  for (const isSpeech of windows) {
    events.push(event(VADEventType.INFERENCE_DONE, true));
    if (isSpeech) {
      speech += WINDOW_MS;
      silence = 0;
      if (!speaking && speech >= WINDOW_MS) {
        speaking = true;
        events.push(event(VADEventType.START_OF_SPEECH, false));
      }
    } else {
      silence += WINDOW_MS;
      speech = 0;
      if (speaking && silence > minSilenceMs) {
        speaking = false;
        events.push(event(VADEventType.END_OF_SPEECH, false));
      }
    }
  }
  return events;
}

const talk = (ms: number) => Array<boolean>(Math.ceil(ms / WINDOW_MS)).fill(true);
const quiet = (ms: number) => Array<boolean>(Math.ceil(ms / WINDOW_MS)).fill(false);

/** What the tracker said, with the window (by event index) it said it at. */
function track(events: VADEvent[], pauseMs = PAUSE_MS): string[] {
  const said: string[] = [];
  const tracker = new PauseTracker(
    {
      silenceStarted: () => said.push('pause'),
      speechResumed: () => said.push('resume'),
    },
    pauseMs,
  );
  for (const event of events) {
    if (event.type === VADEventType.START_OF_SPEECH) said.push('start');
    tracker.observe(event);
    if (event.type === VADEventType.END_OF_SPEECH) said.push('end');
  }
  return said;
}

describe('PauseTracker (a pause within an utterance, from Silero events)', () => {
  it('says a pause once, 200 ms into the silence that then ends the utterance', () => {
    const events = sileroEvents([...quiet(300), ...talk(1500), ...quiet(600)]);
    expect(track(events)).toEqual(['start', 'pause', 'end']);
    // The pause comes with the first event whose silence count reached PAUSE_MS.
    const pauseAt = events.findIndex(
      (e) =>
        e.type === VADEventType.INFERENCE_DONE && e.speaking && e.rawAccumulatedSilence >= PAUSE_MS,
    );
    const endAt = events.findIndex((e) => e.type === VADEventType.END_OF_SPEECH);
    expect((endAt - pauseAt) * WINDOW_MS).toBeGreaterThanOrEqual(450 - PAUSE_MS);
  });

  it('says speech resumed when the user goes on after a pause', () => {
    const events = sileroEvents([
      ...talk(800),
      ...quiet(300),
      ...talk(600),
      ...quiet(250),
      ...talk(100),
      ...quiet(600),
    ]);
    expect(track(events)).toEqual(['start', 'pause', 'resume', 'pause', 'resume', 'pause', 'end']);
  });

  it('says nothing for gaps between words shorter than the pause', () => {
    const events = sileroEvents([...talk(500), ...quiet(150), ...talk(500), ...quiet(600)]);
    expect(track(events)).toEqual(['start', 'pause', 'end']);
  });

  it('takes the pause length it is given (STT_EARLY_START_PAUSE_MS)', () => {
    const events = sileroEvents([...talk(500), ...quiet(250), ...talk(500), ...quiet(600)]);
    expect(track(events)).toEqual(['start', 'pause', 'resume', 'pause', 'end']);
    expect(track(events, 300)).toEqual(['start', 'pause', 'end']);
  });

  it('says nothing while the user is not speaking', () => {
    expect(track(sileroEvents(quiet(2000)))).toEqual([]);
  });
});

describe('vadWatchingPauses (the VAD a session runs on)', () => {
  const listener = { silenceStarted: () => {}, speechResumed: () => {} };

  it('is the shared VAD itself when early starts are off, and watches it otherwise', async () => {
    const vad = await SileroVad.load(pino({ level: 'silent' }));
    expect(vadWatchingPauses(vad, 0, listener)).toBe(vad);
    const watching = vadWatchingPauses(vad, PAUSE_MS, listener);
    expect(watching).toBeInstanceOf(EventWatchingVad);
    expect(watching.minSilenceDuration).toBe(vad.minSilenceDuration);
  });
});

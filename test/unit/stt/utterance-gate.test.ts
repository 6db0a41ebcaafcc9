import { describe, expect, it } from 'vitest';
import { STT_SAMPLE_RATE_HZ } from '../../../src/stt/provider.ts';
import { LEAD_IN_MS, UtteranceGate } from '../../../src/stt/vad/utterance-gate.ts';

const FRAME_MS = 10;
const FRAME = (STT_SAMPLE_RATE_HZ * FRAME_MS) / 1000;

/** A 10 ms frame whose samples all hold `id`, so the test can tell frames apart. */
function frame(id: number): Int16Array {
  return new Int16Array(FRAME).fill(id);
}

/** A wall clock: `tick` advances it one frame, `skip` by any time. */
function clock(startMs: number) {
  let t = startMs;
  return {
    tick: () => {
      t += FRAME_MS;
      return t;
    },
    skip: (ms: number) => {
      t += ms;
    },
    now: () => t,
  };
}

/** Frame ids of the chunks the engine received (one id per 10 ms). */
function ids(chunks: Int16Array[]): number[] {
  const out: number[] = [];
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += FRAME) out.push(chunk[i] as number);
  }
  return out;
}

describe('UtteranceGate (which microphone audio reaches the STT engine)', () => {
  it('passes nothing while closed, then the lead-in and the utterance once open', () => {
    const gate = new UtteranceGate(true);
    const { tick } = clock(0);
    for (let id = 1; id <= 100; id++) {
      expect(gate.push(frame(id), tick()).chunks).toEqual([]);
    }
    gate.open();
    const first = gate.push(frame(101), tick());
    const leadInFrames = LEAD_IN_MS / FRAME_MS;
    expect(ids(first.chunks)).toEqual(
      Array.from({ length: leadInFrames + 1 }, (_, i) => 101 - leadInFrames + i),
    );
    expect(ids(gate.push(frame(102), tick()).chunks)).toEqual([102]);
    gate.close();
    expect(gate.push(frame(103), tick()).chunks).toEqual([]);
  });

  it('ends a committed utterance after the tail, on time when frames arrive in real time', () => {
    const gate = new UtteranceGate(true);
    const { tick, now } = clock(1000);
    for (let id = 1; id <= 50; id++) gate.push(frame(id), tick());
    gate.open();
    const passed: number[] = [];
    for (let id = 51; id <= 80; id++) passed.push(...ids(gate.push(frame(id), tick()).chunks));
    expect(gate.closeAfter(300, now())).toBe(0);
    let endedAt: number | undefined;
    for (let id = 81; id <= 200 && endedAt === undefined; id++) {
      const out = gate.push(frame(id), tick());
      passed.push(...ids(out.chunks));
      if (out.ended) endedAt = id;
    }
    // 30 frames of tail (300 ms) after the commit, then closed.
    expect(endedAt).toBe(110);
    expect(passed.at(-1)).toBe(110);
    expect(gate.isOpen).toBe(false);
    expect(gate.push(frame(111), tick()).chunks).toEqual([]);
  });

  it('keeps the words still queued behind a commit on a busy machine', () => {
    const gate = new UtteranceGate(true);
    const { tick, skip, now } = clock(5000);
    // Real time at first: the pipeline's usual delay is learnt.
    for (let id = 1; id <= 100; id++) gate.push(frame(id), tick());
    gate.open();
    for (let id = 101; id <= 150; id++) gate.push(frame(id), tick());
    // The worker stalls for 800 ms: frames 151-230 are captured but not read yet when the
    // commit arrives (the user released the key after frame 230).
    skip(800);
    const t = now();
    expect(gate.closeAfter(300, t)).toBeCloseTo(800, 5);
    // They then arrive in a burst, with the tail behind them.
    const passed: number[] = [];
    let endedAt: number | undefined;
    for (let id = 151; id <= 400 && endedAt === undefined; id++) {
      const out = gate.push(frame(id), t + 0.1 * (id - 150));
      passed.push(...ids(out.chunks));
      if (out.ended) endedAt = id;
    }
    // Every word frame up to the release (230) and 300 ms of tail (30 frames).
    expect(endedAt).toBe(260);
    expect(passed).toEqual(Array.from({ length: 110 }, (_, i) => 151 + i));
  });

  it('learns a new usual delay after the window, so an old stall does not stretch later commits', () => {
    const gate = new UtteranceGate(true);
    const { tick, skip, now } = clock(0);
    for (let id = 1; id <= 100; id++) gate.push(frame(id), tick());
    // A gap of 2 s in the audio (no frames produced at all), then real time again for 6 s.
    skip(2000);
    for (let id = 101; id <= 700; id++) gate.push(frame(id), tick());
    expect(gate.backlogMs(now())).toBe(0);
  });

  it('passes everything, with no lead-in kept, when not gated', () => {
    const gate = new UtteranceGate(true);
    gate.push(frame(1), 10);
    gate.setGated(false);
    expect(ids(gate.push(frame(2), 20).chunks)).toEqual([2]);
    gate.setGated(true);
    expect(gate.push(frame(3), 30).chunks).toEqual([]);
    gate.open();
    expect(ids(gate.push(frame(4), 40).chunks)).toEqual([3, 4]);
  });
});

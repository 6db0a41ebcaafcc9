import { describe, expect, it } from 'vitest';
import { SpeechDetector } from '../../../src/stt/vad/speech-detector.ts';

/** The changes a detector reports for a run of probabilities, with their window index. */
function changes(detector: SpeechDetector, probabilities: number[]): [number, string][] {
  const out: [number, string][] = [];
  probabilities.forEach((p, i) => {
    const change = detector.push(p);
    if (change) out.push([i, change]);
  });
  return out;
}

const windows = (count: number, p: number) => Array.from({ length: count }, () => p);

describe('SpeechDetector', () => {
  it('starts after 50 ms of speech and ends after more than 450 ms of silence', () => {
    const detector = new SpeechDetector({ windowMs: 32 });
    // 2 windows (64 ms) of speech start it; 15 windows (480 ms) of silence end it.
    expect(changes(detector, [0.9, 0.9, 0.9, ...windows(14, 0), 0, 0])).toEqual([
      [1, 'start'],
      [17, 'end'],
    ]);
    expect(detector.speaking).toBe(false);
  });

  it('ignores a single loud window and silence before speech', () => {
    const detector = new SpeechDetector({ windowMs: 32 });
    expect(changes(detector, [0, 0.9, 0, 0, ...windows(30, 0)])).toEqual([]);
  });

  it('smooths probabilities: 0.35 of the previous value, 0.65 of the new one', () => {
    const detector = new SpeechDetector({ windowMs: 32 });
    // 0.9, then 0.3 filters to 0.51 (still speech), then 0.3 to 0.37.
    expect(changes(detector, [0.9, 0.3])).toEqual([[1, 'start']]);
  });

  it('reports a pause inside speech and speech that resumes', () => {
    const detector = new SpeechDetector({ windowMs: 32, pauseMs: 200 });
    const run = [...windows(5, 0.9), ...windows(8, 0), ...windows(3, 0.9), ...windows(16, 0)];
    expect(changes(detector, run)).toEqual([
      [1, 'start'],
      [11, 'pause'],
      [13, 'resume'],
      [22, 'pause'],
      [30, 'end'],
    ]);
  });

  it('starts again after a reset from outside (a client flush inside speech)', () => {
    const detector = new SpeechDetector({ windowMs: 32 });
    expect(changes(detector, windows(3, 0.9))).toEqual([[1, 'start']]);
    detector.reset();
    expect(changes(detector, windows(3, 0.9))).toEqual([[1, 'start']]);
  });
});

import { describe, expect, it } from 'vitest';
import { heardWords, PlayoutLedger, wholeWords } from '../../../worker/agent-session/playout.ts';

const RATE = 48_000;

describe('PlayoutLedger (what an interrupted reply actually said)', () => {
  it('keeps the sentences fully played and the whole words of the played share of the next', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addAudio(1, 'First sentence here.', RATE); // 1 s, in two pieces
    ledger.addAudio(2, 'Second one is longer than that.', RATE / 2);
    ledger.addAudio(2, 'ignored text of the same request', RATE / 2);
    ledger.addAudio(3, 'Third never played.', RATE);
    // 1 s of the first, then half of the second's 1 s.
    expect(ledger.finish(1.5, true)).toBe('First sentence here. Second one is');
    // An interruption forgets what was synthesized and never played.
    expect(ledger.finish(10, true)).toBe('');
  });

  it('forgets sentences a completed playout played and keeps those synthesized ahead of it', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addAudio(1, 'One.', RATE);
    ledger.addAudio(2, 'Two.', RATE);
    expect(ledger.finish(0.98, false)).toBe('One.');
    ledger.addAudio(3, 'Three four five six.', RATE);
    expect(ledger.finish(1.5, true)).toBe('Two. Three four');
  });

  it('keeps play order when audio of concurrent sentences arrives interleaved', () => {
    const ledger = new PlayoutLedger(RATE);
    // The second sentence starts arriving before the first is complete, and the third
    // before the second has any audio.
    ledger.addAudio(1, 'Sentence one.', RATE / 2);
    ledger.addAudio(3, 'Sentence three is here.', RATE);
    ledger.addAudio(2, 'Sentence two.', RATE / 2);
    ledger.addAudio(1, 'Sentence one.', RATE / 2);
    ledger.addAudio(2, 'Sentence two.', RATE / 2);
    // 1 s of the first, 1 s of the second, then half of the third.
    expect(ledger.finish(2.5, true)).toBe('Sentence one. Sentence two. Sentence');
  });

  it('says nothing when the interruption came before any audio played', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addAudio(1, 'Hello there.', RATE);
    expect(ledger.finish(0, true)).toBe('');
  });
});

describe('PlayoutLedger with word timings (voices that align)', () => {
  // 'One two three.' spoken as: one 0-300 ms, two 300-900 ms (a long word), three 900-1000 ms.
  const words = [
    { textStart: 0, textEnd: 3, startMs: 0 },
    { textStart: 4, textEnd: 7, startMs: 300 },
    { textStart: 8, textEnd: 13, startMs: 900 },
  ];

  it('keeps exactly the words whose start was played, not a share of the characters', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addAudio(1, 'First.', RATE / 2);
    ledger.addWords(2, 'One two three.', words.slice(0, 2));
    ledger.addAudio(2, 'One two three.', RATE);
    ledger.addWords(2, 'One two three.', words.slice(2));
    // 0.5 s of the first sentence, then 0.85 s of the second: "three" starts at 0.9 s. By
    // characters 85% of the sentence would have been "One two".
    expect(ledger.finish(1.35, true)).toBe('First. One two');
  });

  it('counts a word as heard once its first sample is played', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addWords(1, 'One two three.', words);
    ledger.addAudio(1, 'One two three.', RATE);
    // 310 ms: "two" has started, though by characters (31%) only "One" was said.
    expect(ledger.finish(0.31, true)).toBe('One two');
  });

  it('does not count a sentence whose timings came before any of its audio', () => {
    const ledger = new PlayoutLedger(RATE);
    ledger.addAudio(1, 'First.', RATE / 2);
    ledger.addWords(2, 'One two three.', words.slice(0, 1));
    expect(ledger.finish(0.5, true)).toBe('First.');
  });

  it('keeps the punctuation attached to the last word heard', () => {
    const text = 'Yes, well then.';
    const timed = [
      { textStart: 0, textEnd: 3, startMs: 0 },
      { textStart: 5, textEnd: 9, startMs: 400 },
      { textStart: 10, textEnd: 14, startMs: 700 },
    ];
    expect(heardWords(text, timed, 399)).toBe('Yes,');
    expect(heardWords(text, timed, 701)).toBe('Yes, well then.');
    expect(heardWords(text, timed, 0)).toBe('');
  });
});

describe('wholeWords', () => {
  it('cuts back to the last word whose last character was played', () => {
    expect(wholeWords('alpha beta gamma', 0)).toBe('');
    expect(wholeWords('alpha beta gamma', 5 / 16)).toBe('alpha');
    expect(wholeWords('alpha beta gamma', 7 / 16)).toBe('alpha');
    expect(wholeWords('alpha beta gamma', 10 / 16)).toBe('alpha beta');
    expect(wholeWords('alpha beta gamma', 1)).toBe('alpha beta gamma');
  });
});

import { describe, expect, it } from 'vitest';
import type { TextTiming } from '../../../../src/tts/providers/alignment.ts';
import {
  type VendorWordSegment,
  WordSegmentMapper,
} from '../../../../src/tts/providers/upstream/word-segments.ts';

/** Segments one after another, each 0.1 s long, starting at 0. */
function segments(...words: string[]): VendorWordSegment[] {
  return words.map((text, i) => ({ text, startS: i / 10, endS: (i + 1) / 10 }));
}

/** The timings as `[word, startS, endS]`, times rounded to the millisecond. */
function shown(text: string, timings: readonly TextTiming[]) {
  return timings.map((t) => [
    text.slice(t.textStart, t.textEnd),
    Math.round(t.startS * 1000),
    Math.round(t.endS * 1000),
  ]);
}

function mapAll(text: string, vendor: VendorWordSegment[]) {
  const mapper = new WordSegmentMapper(text);
  return shown(text, [...mapper.push(vendor), ...mapper.finish()]);
}

describe('vendor word segments mapped onto the words of the text', () => {
  it('matches words the vendor normalized: apostrophes, quotes and punctuation left out', () => {
    const text = 'I can’t believe it’s “this” long.';
    expect(mapAll(text, segments('I', "can't", 'believe', 'its', 'this', 'long'))).toEqual([
      ['I', 0, 100],
      ['can’t', 100, 200],
      ['believe', 200, 300],
      ['it’s', 300, 400],
      ['this', 400, 500],
      ['long', 500, 600],
    ]);
  });

  it('times a number read out in words as one range, and still matches a later equal word', () => {
    const text = 'I have 42 apples and two pears.';
    const vendor = segments('I', 'have', 'forty', 'two', 'apples', 'and', 'two', 'pears');
    expect(mapAll(text, vendor)).toEqual([
      ['I', 0, 100],
      ['have', 100, 200],
      ['42', 200, 400],
      ['apples', 400, 500],
      ['and', 500, 600],
      ['two', 600, 700],
      ['pears', 700, 800],
    ]);
  });

  it('gives no timing to a word the vendor did not time, and drops a segment of no word', () => {
    const text = 'Hello there friend.';
    expect(mapAll(text, segments('happy', 'Hello', 'friend'))).toEqual([
      ['Hello', 100, 200],
      ['friend', 200, 300],
    ]);
  });

  it('joins the segments of a word the vendor cut in several (a CJK run)', () => {
    const text = '你好世界。 Bye';
    expect(mapAll(text, segments('你好', '世界', 'bye'))).toEqual([
      ['你好世界', 0, 200],
      ['Bye', 200, 300],
    ]);
  });

  it('times the words left after the last match with the segments held at the end', () => {
    expect(
      mapAll('Pay 12 dollars now 3', segments('pay', 'twelve', 'dollars', 'now', 'three')),
    ).toEqual([
      ['Pay', 0, 100],
      ['12', 100, 200],
      ['dollars', 200, 300],
      ['now', 300, 400],
      ['3', 400, 500],
    ]);
  });

  it('hands a word out once a later segment shows it is complete, the last one at finish', () => {
    const text = 'One two';
    const mapper = new WordSegmentMapper(text);
    expect(mapper.push(segments('one'))).toEqual([]);
    expect(shown(text, mapper.push([{ text: 'two', startS: 0.1, endS: 0.2 }]))).toEqual([
      ['One', 0, 100],
    ]);
    expect(shown(text, mapper.finish())).toEqual([['two', 100, 200]]);
    expect(mapper.finish()).toEqual([]);
  });

  it('hands the open word out when the vendor says its text ended at a word boundary', () => {
    const text = 'One two three';
    const mapper = new WordSegmentMapper(text);
    expect(mapper.push(segments('one', 'two'))).toHaveLength(1);
    expect(shown(text, mapper.endWord())).toEqual([['two', 100, 200]]);
    expect(mapper.endWord()).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_STREAM_TOTAL_TEXT_CHARS } from '../../../../src/tts/schemas.ts';
import { queuedTextChars } from '../../../../src/tts/stream/ledger-row.ts';
import type { ClientEvent } from '../../../../src/tts/stream/protocol.ts';

const text = (value: string): ClientEvent => ({ event: 'text', text: value });

describe('queued text characters (reserved together with the event before them)', () => {
  it('counts the code points of the text events at the head of the queue', () => {
    expect(queuedTextChars([text('Hello'), text(' wörld 👋')], 0)).toBe(5 + 8);
    expect(queuedTextChars([], 0)).toBe(0);
  });

  it('stops at the first event that is not text: text after a flush is reserved later', () => {
    expect(queuedTextChars([text('abc'), { event: 'flush' }, text('defgh')], 0)).toBe(3);
    expect(queuedTextChars([{ event: 'stop' }, text('abc')], 0)).toBe(0);
  });

  it('stops before the event that would take the request past its total', () => {
    const received = MAX_STREAM_TOTAL_TEXT_CHARS - 10;
    expect(queuedTextChars([text('x'.repeat(6)), text('y'.repeat(4)), text('z')], received)).toBe(
      10,
    );
    expect(queuedTextChars([text('x'.repeat(11)), text('y')], received)).toBe(0);
  });
});

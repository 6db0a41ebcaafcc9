// The stream's stored-audio copy: nothing at all when persistence is off, the whole audio
// when on, and nothing once it outgrew its limit or the request ended another way.
import { describe, expect, it } from 'vitest';
import { StreamAudioCopy } from '../../../src/tts/stream/audio-copy.ts';

const piece = (byte: number, length = 4) => Buffer.alloc(length, byte);

describe('StreamAudioCopy', () => {
  it('keeps nothing when persistence is off', () => {
    const copy = new StreamAudioCopy(false, 1024);
    copy.collect(piece(1));
    copy.collect(piece(2));
    expect(copy.take()).toBeUndefined();
  });

  it('keeps every piece in order when on, once', () => {
    const copy = new StreamAudioCopy(true, 1024);
    copy.collect(piece(1));
    copy.collect(piece(2));
    expect(copy.take()).toEqual(Buffer.concat([piece(1), piece(2)]));
    expect(copy.take()).toBeUndefined();
  });

  it('gives up past its limit and after a discard', () => {
    const over = new StreamAudioCopy(true, 6);
    over.collect(piece(1));
    over.collect(piece(2));
    over.collect(piece(3, 1));
    expect(over.take()).toBeUndefined();
    const discarded = new StreamAudioCopy(true, 1024);
    discarded.collect(piece(1));
    discarded.discard();
    discarded.collect(piece(2));
    expect(discarded.take()).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, MAX_HEADER_BYTES } from '../../../src/stt/embedded/protocol.ts';

describe('sidecar framing', () => {
  it('round-trips frames split at every byte boundary', () => {
    const payload = Buffer.from([1, 2, 3, 4, 5, 6]);
    const bytes = Buffer.concat([
      encodeFrame({ op: 'transcribe', id: 1, language: 'fr' }, payload),
      encodeFrame({ op: 'shutdown' }),
    ]);
    for (let cut = 0; cut <= bytes.byteLength; cut++) {
      const decoder = new FrameDecoder();
      const frames = [
        ...decoder.push(bytes.subarray(0, cut)),
        ...decoder.push(bytes.subarray(cut)),
      ];
      expect(frames.map((f) => [f.header, [...f.payload]])).toEqual([
        [{ op: 'transcribe', id: 1, language: 'fr' }, [1, 2, 3, 4, 5, 6]],
        [{ op: 'shutdown' }, []],
      ]);
    }
  });

  it('refuses a header over the bound instead of buffering it', () => {
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32BE(MAX_HEADER_BYTES + 1, 0);
    expect(() => new FrameDecoder().push(prefix)).toThrow(/too large/);
  });
});

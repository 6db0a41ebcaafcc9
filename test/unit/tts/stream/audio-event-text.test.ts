import { describe, expect, it } from 'vitest';
import { audioEventText } from '../../../../src/tts/stream/audio-events.ts';

describe('audio event text', () => {
  const piece = Buffer.from(Array.from({ length: 1001 }, (_, i) => (i * 37) % 256));

  it('is exactly the JSON of the audio event, with and without a context id', () => {
    for (const contextId of [undefined, 'turn-1 "quoted" \\ ü']) {
      const text = audioEventText({
        requestId: '0199-request',
        contextId,
        format: 'pcm_24000',
      })(7, piece);
      expect(text).toBe(
        JSON.stringify({
          event: 'audio',
          request_id: '0199-request',
          ...(contextId === undefined ? {} : { context_id: contextId }),
          seq: 7,
          audio: piece.toString('base64'),
          format: 'pcm_24000',
        }),
      );
      expect(Buffer.from(JSON.parse(text).audio, 'base64').equals(piece)).toBe(true);
    }
  });
});

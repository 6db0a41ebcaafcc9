import { describe, expect, it } from 'vitest';
import type { OutputFormat } from '../../../media/formats.ts';
import type { PcmChunk } from '../../../media/pcm.ts';
import { inThreadTranscoder, type TranscoderFactory } from '../../../media/transcode.ts';
import { passPcmThroughInThread } from '../../../media/transcoder-placement.ts';
import { espeakPcm } from '../../helpers/audio.ts';

/** A factory that records what it was asked to make, and makes it in this thread. */
function recording(): { made: OutputFormat[]; factory: TranscoderFactory } {
  const made: OutputFormat[] = [];
  return {
    made,
    factory: (format, options) => {
      made.push(format);
      return inThreadTranscoder(format, options);
    },
  };
}

async function transcode(factory: TranscoderFactory, format: OutputFormat, chunks: PcmChunk[]) {
  const transcoder = factory(format, {});
  const parts: Buffer[] = [];
  const reading = (async () => {
    for await (const bytes of transcoder.output) parts.push(bytes);
  })();
  for (const chunk of chunks) await transcoder.write(chunk);
  await transcoder.end();
  await reading;
  return Buffer.concat(parts);
}

describe('passPcmThroughInThread', () => {
  it('passes PCM at its format rate through unchanged, without the other factory', async () => {
    const { made, factory } = recording();
    const pcm = { data: Buffer.from([1, 0, 2, 0, 3, 0, 4, 0]), sampleRateHz: 24_000 };
    const out = await transcode(passPcmThroughInThread(factory), 'pcm_24000', [pcm, pcm]);
    expect(out.equals(Buffer.concat([pcm.data, pcm.data]))).toBe(true);
    expect(made).toEqual([]);
  });

  it('hands PCM at another rate, and every encoded format, to the other factory', async () => {
    const { made, factory } = recording();
    const placed = passPcmThroughInThread(factory);
    const speech = await espeakPcm('Hello there.');
    const resampled = await transcode(placed, 'pcm_24000', [speech]);
    expect(resampled.length / 2).toBe(Math.round((speech.data.length / 2) * (24_000 / 22_050)));
    await transcode(placed, 'opus_48000_64', [speech]);
    expect(made).toEqual(['pcm_24000', 'opus_48000_64']);
  });

  it('ends an empty stream in this thread, and an abort before any audio rejects its output', async () => {
    const { made, factory } = recording();
    const placed = passPcmThroughInThread(factory);
    expect((await transcode(placed, 'pcm_48000', [])).length).toBe(0);
    const aborted = placed('pcm_48000', {});
    const reason = new Error('client left');
    aborted.abort(reason);
    await expect(
      (async () => {
        for await (const _ of aborted.output) {
          // nothing arrives
        }
      })(),
    ).rejects.toBe(reason);
    await expect(aborted.write({ data: Buffer.alloc(4), sampleRateHz: 48_000 })).rejects.toBe(
      reason,
    );
    expect(made).toEqual([]);
  });
});

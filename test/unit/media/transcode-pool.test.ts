import { afterAll, describe, expect, it } from 'vitest';
import { MediaError } from '../../../media/errors.ts';
import { TranscodePool } from '../../../media/worker/transcode-pool.ts';
import { collectChunks, espeakPcm } from '../../helpers/audio.ts';

describe('TranscodePool', () => {
  const pool = new TranscodePool({ threads: 2 });
  afterAll(() => pool.close());

  it('spreads transcoders over its threads and forgets them when done', async () => {
    const speech = await espeakPcm('Spread over threads.');
    const transcoders = Array.from({ length: 4 }, () => pool.create('opus_48000_64'));
    expect(pool.workers).toHaveLength(2);
    expect(pool.active).toBe(4);
    const outputs = await Promise.all(
      transcoders.map(async (transcoder) => {
        const reading = collectChunks(transcoder.output);
        await transcoder.write(speech);
        await transcoder.end();
        return Buffer.concat(await reading);
      }),
    );
    for (const output of outputs) expect(output.subarray(0, 4).toString('latin1')).toBe('OggS');
    // Same audio, same packets: only the random stream serial (and so the CRCs) differ.
    expect(new Set(outputs.map((output) => output.byteLength)).size).toBe(1);
    expect(pool.active).toBe(0);
  });

  it('fails only the transcoders of a worker that died, then starts a new worker', async () => {
    const speech = await espeakPcm('A worker that dies.');
    const doomed = pool.create('pcm_24000');
    const doomedOutput = collectChunks(doomed.output);
    await doomed.write(speech);
    const before = pool.workers;
    const survivor = pool.create('pcm_24000');
    const survivorOutput = collectChunks(survivor.output);
    await survivor.write(speech);
    // The doomed transcoder's worker is the first; the survivor went to the other one.
    await before[0]!.terminate();
    await expect(doomedOutput).rejects.toBeInstanceOf(MediaError);
    await expect(doomed.write(speech)).rejects.toMatchObject({ kind: 'encoder_failed' });
    await survivor.end();
    expect(Buffer.concat(await survivorOutput).byteLength).toBeGreaterThan(24_000);

    const next = pool.create('pcm_24000');
    const reading = collectChunks(next.output);
    await next.write(speech);
    await next.end();
    expect(Buffer.concat(await reading).byteLength).toBeGreaterThan(24_000);
  });

  it('refuses new transcoders once closed', async () => {
    const closing = new TranscodePool({ threads: 1 });
    await closing.close();
    expect(() => closing.create('pcm_24000')).toThrow(MediaError);
  });
});

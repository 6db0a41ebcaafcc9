// Flow control of EngineHelper against a protocol-speaking stand-in of the engine
// (fake-engine-helper.mjs), whose timing decides what arrives in one read.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineHelper } from '../../../../src/tts/providers/native/helper/engine-helper.ts';

const FAKE = path.join(import.meta.dirname, 'fake-engine-helper.mjs');
const UTTERANCE = { voice: 'en-us', text: 'Hello.', wordsPerMinute: 175, pitch: 50 };
const helpers: EngineHelper[] = [];

afterEach(async () => {
  for (const helper of helpers.splice(0)) {
    helper.kill();
    await helper.exited;
  }
});

/** Every chunk of one utterance, or `undefined` if it has not ended within `ms`. */
async function speakAll(helper: EngineHelper, ms: number): Promise<number | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('no end')), ms);
  let bytes = 0;
  try {
    for await (const chunk of helper.synthesize(UTTERANCE, controller.signal)) {
      bytes += chunk.data.length;
    }
    return bytes;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

describe('EngineHelper flow control', () => {
  it('serves the next request after a consumer left an utterance that had already ended while output was paused', async () => {
    // A high-water mark of one byte: any audio waiting for the consumer pauses reading.
    const helper = new EngineHelper(FAKE, { highWaterBytes: 1 });
    helpers.push(helper);
    const controller = new AbortController();
    const first = helper.synthesize(UTTERANCE, controller.signal);
    expect((await first.next()).value?.data.length).toBe(960);
    // The rest and the end frame arrive in one read while nobody pulls: reading pauses on
    // the first of them, and the end frame in the same read ends the request.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.return(undefined);
    expect(helper.busy).toBe(false);
    // The same process must still be read: the whole next utterance arrives.
    expect(await speakAll(helper, 5_000)).toBe(3 * 960);
    expect(await speakAll(helper, 5_000)).toBe(3 * 960);
  });

  it('frees the engine as soon as the utterance has ended, while its consumer has not read it yet', async () => {
    const helper = new EngineHelper(FAKE);
    helpers.push(helper);
    let done = false;
    const first = helper.synthesize(UTTERANCE, new AbortController().signal, () => {
      done = true;
    });
    let firstBytes = (await first.next()).value?.data.length ?? 0;
    // Nobody pulls: the end frame alone must free the engine.
    for (let i = 0; i < 100 && !done; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done).toBe(true);
    expect(helper.busy).toBe(false);
    // The freed engine serves another whole utterance meanwhile...
    expect(await speakAll(helper, 5_000)).toBe(3 * 960);
    // ...and the first consumer still gets all of its own audio.
    for await (const chunk of first) firstBytes += chunk.data.length;
    expect(firstBytes).toBe(3 * 960);
  });

  it('hands on the first audio at once, then pieces of at least holdBytes, then the rest at the end', async () => {
    // No timer releases held audio here: only its size and the utterance's end do.
    const helper = new EngineHelper(FAKE, { holdBytes: 2000, holdMs: 600_000 });
    helpers.push(helper);
    const chunks: number[] = [];
    const utterance = { ...UTTERANCE, text: 'steady' };
    for await (const chunk of helper.synthesize(utterance, new AbortController().signal)) {
      chunks.push(chunk.data.length);
    }
    expect(chunks[0]).toBe(960);
    expect(chunks.reduce((sum, bytes) => sum + bytes, 0)).toBe(5 * 960);
    // Between the first and the last, no piece is smaller than holdBytes.
    for (const bytes of chunks.slice(1, -1)) expect(bytes).toBeGreaterThanOrEqual(2000);
    expect(chunks.length).toBeLessThanOrEqual(3);
  });

  it('hands on held audio once it has waited holdMs, before the utterance ends', async () => {
    const helper = new EngineHelper(FAKE, { holdMs: 100 });
    helpers.push(helper);
    let ended = false;
    const utterance = { ...UTTERANCE, text: 'pause' };
    const chunks: { bytes: number; ended: boolean }[] = [];
    const speech = helper.synthesize(utterance, new AbortController().signal, () => {
      ended = true;
    });
    for await (const chunk of speech) chunks.push({ bytes: chunk.data.length, ended });
    // The second frame waited 100 ms, not for the end frame 2 s after it.
    expect(chunks).toEqual([
      { bytes: 960, ended: false },
      { bytes: 960, ended: false },
    ]);
    expect(ended).toBe(true);
  });
});

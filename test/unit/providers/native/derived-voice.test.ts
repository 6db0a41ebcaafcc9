import { afterAll, describe, expect, it } from 'vitest';
import { NativeProvider } from '../../../../src/tts/providers/native/index.ts';
import { measureVoice } from '../../../../src/voices/cloning/native-derivation.ts';
import { ANALYSIS_RATE_HZ } from '../../../../src/voices/cloning/sample-audio.ts';
import { runProcess } from '../../../helpers/audio.ts';
import { collectAudio } from '../pcm-stats.ts';

const SENTENCE = 'The quick brown fox jumps over the lazy dog while the sun sets behind the hills.';
const provider = new NativeProvider({ launcher: false });

afterAll(() => provider.close());

/** Synthesizes through the provider and measures the result as cloning measures samples. */
async function measure(providerVoiceId: string, speed?: number) {
  const audio = await collectAudio(
    provider.synthesize(
      { text: SENTENCE, providerVoiceId, ...(speed ? { speed } : {}) },
      new AbortController().signal,
    ),
  );
  const resampled = await runProcess(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      's16le',
      '-ar',
      String(audio.sampleRateHz),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      '-ar',
      String(ANALYSIS_RATE_HZ),
      '-f',
      's16le',
      'pipe:1',
    ],
    audio.pcm,
  );
  const pcm = new Int16Array(
    resampled.stdout.buffer,
    resampled.stdout.byteOffset,
    resampled.stdout.byteLength >> 1,
  );
  return measureVoice([{ pcm: Int16Array.from(pcm), transcript: SENTENCE }]);
}

describe('NativeProvider with a derived voice reference', () => {
  it('speaks at the reference pitch and base rate, the request speed on top', async () => {
    const low = await measure('en-us+m3/p20/w150');
    const high = await measure('en-us+m3/p80/w150');
    const fast = await measure('en-us+m3/p20/w300');
    const faster = await measure('en-us+m3/p20/w150', 2);
    expect(high.medianPitchHz).toBeGreaterThan(low.medianPitchHz * 1.5);
    expect(fast.wordsPerMinute).toBeGreaterThan(low.wordsPerMinute * 1.5);
    expect(faster.wordsPerMinute).toBeGreaterThan(low.wordsPerMinute * 1.5);
  });

  it('rejects a malformed reference without starting espeak-ng', async () => {
    await expect(
      collectAudio(
        provider.synthesize(
          { text: 'x', providerVoiceId: '-v/p1/w100' },
          new AbortController().signal,
        ),
      ),
    ).rejects.toMatchObject({ failure: 'rejected' });
  });
});

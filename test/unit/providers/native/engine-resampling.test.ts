import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { float32ToPcm, pcmToFloat32 } from '../../../../media/pcm.ts';
import { createResampler } from '../../../../media/resample.ts';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import { EngineHelper } from '../../../../src/tts/providers/native/helper/engine-helper.ts';
import {
  defaultEngineHelperPath,
  NativeProvider,
} from '../../../../src/tts/providers/native/index.ts';
import { sineSweep, snrDb } from '../../../helpers/audio.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { type CollectedAudio, collectAudio } from '../pcm-stats.ts';
import { helperProcesses } from './processes.ts';

// The long-lived engine delivers the caller's rate itself (libsoxr in the utterance
// process), so the service needs no resampling stage for native voices.

const helperPath = defaultEngineHelperPath();
if (helperPath === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
const VOICE = 'en-us+f3';
const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs away.';
const providers: NativeProvider[] = [];
const helpers: EngineHelper[] = [];

function provider(maxProcesses = 1): NativeProvider {
  const made = new NativeProvider({ engineHelper: helperPath, maxProcesses });
  providers.push(made);
  return made;
}

function speak(native: NativeProvider, preferredSampleRateHz?: number): Promise<CollectedAudio> {
  return collectAudio(
    native.synthesize(
      {
        text: SENTENCE,
        providerVoiceId: VOICE,
        ...(preferredSampleRateHz === undefined ? {} : { preferredSampleRateHz }),
      },
      new AbortController().signal,
    ),
  );
}

/** `pcm` from one rate to another by Speex at quality 10, the reference resampler here. */
async function resampled(pcm: Buffer, fromHz: number, toHz: number): Promise<Buffer> {
  const resampler = await createResampler(fromHz, toHz, { quality: 10 });
  const out = Buffer.concat([resampler.push(pcm), resampler.flush()]);
  resampler.destroy();
  return out;
}

afterEach(async () => {
  for (const helper of helpers.splice(0)) helper.kill();
  await Promise.all(providers.splice(0).map((made) => made.close()));
  await waitFor(() => helperProcesses().length === 0, { what: 'no engine helper left' });
});

describe('long-lived engine at the caller’s rate', () => {
  it.each([24_000, 44_100, 48_000])(
    'delivers %i Hz: its own audio resampled, the same speech at the new rate',
    async (rate) => {
      const native = provider();
      const own = await speak(native);
      expect(own.sampleRateHz).toBe(22_050);
      const delivered = await speak(native, rate);
      for (const chunk of delivered.chunks) expect(chunk.sampleRateHz).toBe(rate);
      // As long as the engine's own audio, give or take the filter's last sample.
      const expectedSamples = (own.pcm.length / 2) * (rate / 22_050);
      expect(Math.abs(delivered.pcm.length / 2 - expectedSamples)).toBeLessThanOrEqual(1);
      // The same speech: a high-quality reference (Speex at quality 10) on the engine's own
      // audio agrees below 7.2 kHz (both brought to 16 kHz by that reference) to 60 dB.
      const reference = await resampled(own.pcm, 22_050, rate);
      const below = async (pcm: Buffer) => pcmToFloat32(await resampled(pcm, rate, 16_000));
      expect(snrDb(await below(reference), await below(delivered.pcm), 160)).toBeGreaterThan(60);
    },
    30_000,
  );

  // The quality test every resampler of the service passes (test/unit/media/resample.test.ts),
  // on the engine's own: a sine sweep through `awp-espeak-engine --resample`, which runs the
  // resampler set up exactly as for an utterance.
  it.each([24_000, 44_100, 48_000, 16_000])(
    'its resampler keeps a sine sweep above 60 dB SNR in band and the exact length, 22050 Hz -> %i Hz',
    async (rate) => {
      const seconds = 2;
      const topHz = 0.9 * (Math.min(22_050, rate) / 2);
      const input = float32ToPcm(sineSweep(22_050, seconds, 50, topHz));
      const result = spawnSync(helperPath, ['--resample', '22050', String(rate)], { input });
      expect(result.status).toBe(0);
      const output = pcmToFloat32(result.stdout);
      expect(output.length).toBe(Math.round((input.length / 2) * (rate / 22_050)));
      const expected = sineSweep(rate, seconds, 50, topHz);
      expect(snrDb(expected, output, Math.round(rate * 0.01))).toBeGreaterThanOrEqual(60);
    },
  );

  it('speaks the same bytes every time at a resampled rate, in any engine, whatever came before', async () => {
    const native = provider(3);
    const first = await speak(native, 24_000);
    await speak(native, 48_000);
    await speak(native);
    // Three at once run in three engines, each with its own voice template and resampler.
    for (let i = 0; i < 3; i++) {
      const round = await Promise.all([
        speak(native, 24_000),
        speak(native, 24_000),
        speak(native, 24_000),
      ]);
      for (const audio of round) expect(audio.pcm.equals(first.pcm)).toBe(true);
    }
  });

  it('keeps its own rate when the caller prefers one it does not serve', async () => {
    const native = provider();
    const audio = await speak(native, 96_000);
    expect(audio.sampleRateHz).toBe(22_050);
    expect(audio.durationMs).toBeGreaterThan(2000);
  });

  it('refuses an output rate it does not serve when asked directly, and goes on serving', async () => {
    const helper = new EngineHelper(helperPath);
    helpers.push(helper);
    const utterance = { voice: VOICE, wordsPerMinute: 175, pitch: 50, text: SENTENCE };
    const signal = new AbortController().signal;
    const error = await collectAudio(
      helper.synthesize({ ...utterance, outputRateHz: 96_000 }, signal),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe('espeak-ng: unsupported output rate');
    const audio = await collectAudio(
      helper.synthesize({ ...utterance, outputRateHz: 24_000 }, signal),
    );
    expect(audio.sampleRateHz).toBe(24_000);
    expect(audio.durationMs).toBeGreaterThan(2000);
  });

  it('refuses an engine built from older sources and names the step that rebuilds it', async () => {
    const old = path.join(import.meta.dirname, 'old-engine-helper.mjs');
    const helper = new EngineHelper(old);
    helpers.push(helper);
    const error = await collectAudio(
      helper.synthesize(
        { voice: VOICE, wordsPerMinute: 175, pitch: 50, text: SENTENCE },
        new AbortController().signal,
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(
      `${old} speaks protocol 1, not 3: rebuild it with bash scripts/build-engine.sh`,
    );
    expect((error as ProviderError).toApiError()).toMatchObject({
      code: 'provider_error',
      retryable: true,
    });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { PcmChunk } from '../../../../media/pcm.ts';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import {
  type EngineProcessEvent,
  NativeProvider,
  type NativeProviderOptions,
} from '../../../../src/tts/providers/native/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { collectAudio, rms, summarize } from '../pcm-stats.ts';
import { childEngineProcesses, longText, pidExists } from './processes.ts';

const VOICE = 'en-us+f3';
const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs away.';
const providers: NativeProvider[] = [];

/** A provider that records the engine processes it hands to requests. */
function makeProvider(options: NativeProviderOptions = {}) {
  const events: EngineProcessEvent[] = [];
  const provider = new NativeProvider({ ...options, onEngineProcess: (e) => events.push(e) });
  providers.push(provider);
  return { provider, events };
}

function speak(provider: NativeProvider, text: string, signal = new AbortController().signal) {
  return provider.synthesize({ text, providerVoiceId: VOICE }, signal);
}

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await waitFor(() => childEngineProcesses().length === 0, { what: 'no espeak-ng child left' });
});

describe('NativeProvider streaming', () => {
  it('yields audio in several chunks while espeak-ng is still running', async () => {
    const { provider, events } = makeProvider();
    const chunks: PcmChunk[] = [];
    let aliveAtFirstChunk: boolean | undefined;
    for await (const chunk of speak(provider, longText(60))) {
      if (chunks.length === 0) aliveAtFirstChunk = pidExists(events[0]!.pid!);
      chunks.push(chunk);
    }
    expect(aliveAtFirstChunk).toBe(true);
    expect(chunks.length).toBeGreaterThan(5);
    const audio = summarize(chunks);
    expect(audio.sampleRateHz).toBe(22_050);
    // About 1,700 words at 175 wpm: several minutes of speech.
    expect(audio.durationMs).toBeGreaterThan(5 * 60_000);
    expect(pidExists(events[0]!.pid!)).toBe(false);
  });

  it('speaks faster at speed 2 than at speed 1, slower at 0.5', async () => {
    const { provider, events } = makeProvider();
    const durationAt = async (speed: number) =>
      (
        await collectAudio(
          provider.synthesize(
            { text: SENTENCE, providerVoiceId: VOICE, speed },
            new AbortController().signal,
          ),
        )
      ).durationMs;
    const normal = await durationAt(1);
    const fast = await durationAt(2);
    const slow = await durationAt(0.5);
    expect(fast).toBeLessThan(normal * 0.7);
    expect(slow).toBeGreaterThan(normal * 1.4);
    expect(events.map((e) => e.wordsPerMinute)).toEqual([175, 350, 88]);
  });

  it('reads text starting with a dash as text, not as options', async () => {
    const { provider } = makeProvider();
    const audio = await collectAudio(speak(provider, '--version -s 900 -w /tmp/x.wav hello there'));
    // Spoken at normal speed: "dash dash version dash s nine hundred ...".
    expect(audio.durationMs).toBeGreaterThan(2000);
    expect(rms(audio.pcm)).toBeGreaterThan(300);
  });

  it('does not interpret markup (no -m): tags are read as text', async () => {
    const { provider } = makeProvider();
    const plain = await collectAudio(speak(provider, 'hello'));
    const tagged = await collectAudio(
      speak(provider, '<speak><prosody rate="x-slow">hello</prosody></speak>'),
    );
    expect(tagged.durationMs).toBeGreaterThan(plain.durationMs * 1.5);
  });

  it('returns no audio for empty text', async () => {
    const { provider } = makeProvider();
    const audio = await collectAudio(speak(provider, ''));
    expect(audio.pcm.length).toBe(0);
  });
});

describe('NativeProvider cancellation', () => {
  it('kills the subprocess at once and throws signal.reason', async () => {
    const { provider, events } = makeProvider();
    const controller = new AbortController();
    const iterator = speak(provider, longText(60), controller.signal)[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const pid = events[0]!.pid!;
    expect(pidExists(pid)).toBe(true);
    const reason = new Error('client disconnected');
    controller.abort(reason);
    await expect(iterator.next()).rejects.toBe(reason);
    // The iterator ends only after the process exited and was reaped.
    expect(pidExists(pid)).toBe(false);
    expect(provider.stats.busy).toBe(0);
  });

  it('kills the subprocess when the consumer breaks out early', async () => {
    const { provider, events } = makeProvider();
    for await (const _ of speak(provider, longText(60))) break;
    expect(pidExists(events[0]!.pid!)).toBe(false);
    expect(provider.stats.busy).toBe(0);
  });

  it('leaks no process or slot over 100 sequential cancellations', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 2 });
    const text = longText(30);
    for (let i = 0; i < 100; i++) {
      const controller = new AbortController();
      const iterator = speak(provider, text, controller.signal)[Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      controller.abort();
      await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    }
    expect(events).toHaveLength(100);
    expect(events.every((event) => !pidExists(event.pid!))).toBe(true);
    expect(provider.stats).toMatchObject({ busy: 0, waiting: 0 });
    // Only warm spares may remain; cancelled requests never mark a voice for one.
    expect(childEngineProcesses()).toHaveLength(provider.stats.alive);
    expect(provider.stats.alive).toBe(provider.stats.warm);
    // Both slots are still usable.
    const [a, b] = await Promise.all([
      collectAudio(speak(provider, SENTENCE)),
      collectAudio(speak(provider, SENTENCE)),
    ]);
    expect(a.durationMs).toBeGreaterThan(1000);
    expect(b.durationMs).toBeGreaterThan(1000);
  }, 60_000);
});

describe('NativeProvider failures', () => {
  it('fails only the request whose engine was killed; the pool recovers', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 2, warmProcesses: 0 });
    const victim = provider.synthesize(
      { text: longText(60), providerVoiceId: 'en-us+f3' },
      new AbortController().signal,
    );
    const survivor = provider.synthesize(
      { text: longText(10), providerVoiceId: 'en-gb+m3' },
      new AbortController().signal,
    );
    const victimResult = (async () => {
      let killed = false;
      for await (const _ of victim) {
        if (!killed) {
          const pid = events.find((e) => e.providerVoiceId === 'en-us+f3')!.pid!;
          process.kill(pid, 'SIGKILL');
          killed = true;
        }
      }
    })();
    const [victimOutcome, survivorOutcome] = await Promise.allSettled([
      victimResult,
      collectAudio(survivor),
    ]);

    expect(victimOutcome.status).toBe('rejected');
    const error = (victimOutcome as PromiseRejectedResult).reason as unknown;
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('unavailable');
    expect((error as ProviderError).message).toContain('SIGKILL');
    const apiError = (error as ProviderError).toApiError();
    expect(apiError.code).toBe('provider_error');
    expect(apiError.retryable).toBe(true);
    expect(apiError.message).not.toMatch(/espeak/i);

    expect(survivorOutcome.status).toBe('fulfilled');
    const audio = (survivorOutcome as PromiseFulfilledResult<{ durationMs: number }>).value;
    expect(audio.durationMs).toBeGreaterThan(30_000);

    const later = await collectAudio(speak(provider, SENTENCE));
    expect(later.durationMs).toBeGreaterThan(1000);
    expect(provider.stats).toMatchObject({ alive: 0, busy: 0, waiting: 0 });
  });

  it('fails with ProviderError unavailable when the binary is missing', async () => {
    const { provider } = makeProvider({ binaryPath: '/nonexistent/bin/espeak-ng' });
    const error = await collectAudio(speak(provider, SENTENCE)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('unavailable');
    expect((error as ProviderError).message).toBe(
      'espeak-ng binary not found: /nonexistent/bin/espeak-ng',
    );
    expect((error as ProviderError).toApiError()).toMatchObject({
      code: 'provider_error',
      retryable: true,
    });
    expect(provider.stats).toMatchObject({ alive: 0, busy: 0 });
    // Still failing cleanly the second time (no stuck slot, no spawn loop).
    await expect(collectAudio(speak(provider, SENTENCE))).rejects.toBeInstanceOf(ProviderError);
    expect(provider.stats.alive).toBe(0);
  });

  it('fails with ProviderError unavailable when espeak-ng does not know the voice', async () => {
    const { provider } = makeProvider();
    const error = await collectAudio(
      provider.synthesize(
        { text: SENTENCE, providerVoiceId: 'xx-nope' },
        new AbortController().signal,
      ),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('unavailable');
    expect((error as ProviderError).message).toMatch(/exited with code 1/);
  });

  it('rejects a voice string that could be read as an option, without spawning', async () => {
    const { provider, events } = makeProvider();
    const error = await collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: '-q' }, new AbortController().signal),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('rejected');
    expect(events).toHaveLength(0);
  });
});

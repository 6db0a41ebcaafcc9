import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import {
  NativeProvider,
  type NativeProviderOptions,
} from '../../../../src/tts/providers/native/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { collectAudio } from '../pcm-stats.ts';
import {
  childEngineProcesses,
  launchedEngineProcesses,
  launcherProcesses,
  longText,
} from './processes.ts';

const VOICE = 'en-us+f3';
const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs away.';

describe('NativeProvider with the engine launcher', () => {
  const providers: NativeProvider[] = [];
  const make = (options: NativeProviderOptions = {}) => {
    const provider = new NativeProvider({ ...options, launcher: true });
    providers.push(provider);
    return provider;
  };
  const speak = (provider: NativeProvider, text: string, signal = new AbortController().signal) =>
    provider.synthesize({ text, providerVoiceId: VOICE }, signal);

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
    await waitFor(
      () => launcherProcesses().length === 0 && launchedEngineProcesses().length === 0,
      { what: 'no launcher and no launched engine left' },
    );
  });

  it('produces the same audio as engines started in this process', async () => {
    const local = new NativeProvider();
    try {
      const [a, b] = await Promise.all([
        collectAudio(speak(make(), SENTENCE)),
        collectAudio(speak(local, SENTENCE)),
      ]);
      expect(a.pcm.equals(b.pcm)).toBe(true);
      expect(a.durationMs).toBeGreaterThan(2000);
    } finally {
      await local.close();
    }
  });

  it('starts no engine process of its own: espeak-ng runs under the launcher', async () => {
    const provider = make();
    const iterator = speak(provider, longText(40))[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    expect(childEngineProcesses()).toEqual([]);
    expect(launchedEngineProcesses().length).toBeGreaterThan(0);
    await iterator.return?.(undefined);
  });

  it('serves many short requests at once, each complete', async () => {
    const provider = make({ maxProcesses: 4 });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => collectAudio(speak(provider, `Request number ${i}.`))),
    );
    for (const result of results) expect(result.durationMs).toBeGreaterThan(500);
  });

  it('kills the engine on cancellation and leaks nothing over 50 cancellations', async () => {
    const provider = make({ maxProcesses: 2 });
    const text = longText(30);
    for (let i = 0; i < 50; i++) {
      const controller = new AbortController();
      const iterator = speak(provider, text, controller.signal)[Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      controller.abort();
      await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    }
    expect(provider.stats).toMatchObject({ busy: 0, waiting: 0 });
    await waitFor(() => launchedEngineProcesses().length === provider.stats.warm, {
      what: 'one launched engine per warm one',
    });
    const audio = await collectAudio(speak(provider, SENTENCE));
    expect(audio.durationMs).toBeGreaterThan(1000);
  }, 60_000);

  it('fails a request whose engine was killed as retryable, and recovers', async () => {
    const provider = make({ warmProcesses: 0 });
    let killed = false;
    const outcome = await (async () => {
      for await (const _ of speak(provider, longText(60))) {
        if (!killed) {
          for (const pid of launchedEngineProcesses()) process.kill(pid, 'SIGKILL');
          killed = true;
        }
      }
    })().catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ProviderError);
    expect((outcome as ProviderError).message).toContain('SIGKILL');
    expect((outcome as ProviderError).toApiError()).toMatchObject({
      code: 'provider_error',
      retryable: true,
    });
    expect((await collectAudio(speak(provider, SENTENCE))).durationMs).toBeGreaterThan(1000);
  });

  it('fails requests in flight when the launcher dies, then starts a new launcher', async () => {
    const provider = make({ warmProcesses: 0 });
    let killed = false;
    const outcome = await (async () => {
      for await (const _ of speak(provider, longText(60))) {
        if (!killed) {
          for (const pid of launcherProcesses()) process.kill(pid, 'SIGKILL');
          killed = true;
        }
      }
    })().catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ProviderError);
    expect((outcome as ProviderError).toApiError().retryable).toBe(true);
    expect((await collectAudio(speak(provider, SENTENCE))).durationMs).toBeGreaterThan(1000);
    // The orphaned engine of the dead launcher does not outlive it for long.
    expect(launcherProcesses()).toHaveLength(1);
  });

  it('reports a missing binary like a local start does', async () => {
    const provider = make({ binaryPath: '/nonexistent/bin/espeak-ng' });
    const error = await collectAudio(speak(provider, SENTENCE)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(
      'espeak-ng binary not found: /nonexistent/bin/espeak-ng',
    );
    expect(provider.stats.alive).toBe(0);
  });

  it('stops the launcher and its engines on close', async () => {
    const provider = make();
    await collectAudio(speak(provider, SENTENCE));
    expect(launcherProcesses()).toHaveLength(1);
    await provider.close();
    await waitFor(
      () => launcherProcesses().length === 0 && launchedEngineProcesses().length === 0,
      { what: 'no launcher and no launched engine left' },
    );
  });
});

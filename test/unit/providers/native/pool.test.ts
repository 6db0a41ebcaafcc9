import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import {
  type EngineProcessEvent,
  NativeProvider,
  type NativeProviderOptions,
} from '../../../../src/tts/providers/native/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { collectAudio } from '../pcm-stats.ts';
import { childEngineProcesses, longText } from './processes.ts';

const VOICE = 'en-us+f3';
const SENTENCE = 'A short sentence for the pool.';
const providers: NativeProvider[] = [];

function makeProvider(options: NativeProviderOptions = {}) {
  const events: EngineProcessEvent[] = [];
  const provider = new NativeProvider({ ...options, onEngineProcess: (e) => events.push(e) });
  providers.push(provider);
  return { provider, events };
}

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await waitFor(() => childEngineProcesses().length === 0, { what: 'no espeak-ng child left' });
});

describe('espeak-ng process pool', () => {
  it('never runs more than maxProcesses engines; extra requests wait in FIFO order', async () => {
    const maxProcesses = 2;
    const { provider, events } = makeProvider({ maxProcesses });
    // Warm one spare first, so the bound is checked with spares counted too.
    await collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: VOICE }, new AbortController().signal),
    );
    await waitFor(() => provider.stats.warm === 1, { what: 'one warm engine' });

    let maxSeen = 0;
    let maxAlive = 0;
    let maxWaiting = 0;
    const sample = () => {
      maxSeen = Math.max(maxSeen, childEngineProcesses().length);
      maxAlive = Math.max(maxAlive, provider.stats.alive);
      maxWaiting = Math.max(maxWaiting, provider.stats.waiting);
    };
    const sampler = setInterval(sample, 2);
    // Distinct speeds give distinct rates, which tells the requests apart in `events`.
    const speeds = Array.from({ length: maxProcesses + 5 }, (_, i) => 1 + i * 0.1);
    const results = await Promise.all(
      speeds.map((speed) =>
        collectAudio(
          provider.synthesize(
            { text: longText(8), providerVoiceId: VOICE, speed },
            new AbortController().signal,
          ),
        ).finally(sample),
      ),
    );
    clearInterval(sampler);

    expect(results.every((audio) => audio.durationMs > 10_000)).toBe(true);
    expect(maxSeen).toBeLessThanOrEqual(maxProcesses);
    expect(maxAlive).toBeLessThanOrEqual(maxProcesses);
    expect(maxWaiting).toBeGreaterThan(0);
    expect(events.slice(1).map((e) => e.wordsPerMinute)).toEqual(
      speeds.map((speed) => Math.round(175 * speed)),
    );
    expect(provider.stats).toMatchObject({ busy: 0, waiting: 0 });
  });

  it('lets a queued request be cancelled while it waits, without spawning', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1, warmProcesses: 0 });
    const holder = provider
      .synthesize({ text: longText(20), providerVoiceId: VOICE }, new AbortController().signal)
      [Symbol.asyncIterator]();
    expect((await holder.next()).done).toBe(false);

    const controller = new AbortController();
    const queued = collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: VOICE }, controller.signal),
    );
    await waitFor(() => provider.stats.waiting === 1, { what: 'one request waiting' });
    const reason = new Error('gave up waiting');
    controller.abort(reason);
    await expect(queued).rejects.toBe(reason);
    expect(provider.stats.waiting).toBe(0);
    expect(events).toHaveLength(1);

    // The holder still completes, then the slot serves the next request.
    while (!(await holder.next()).done) {}
    const next = await collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: VOICE }, new AbortController().signal),
    );
    expect(next.durationMs).toBeGreaterThan(500);
    expect(events).toHaveLength(2);
  });

  it('refuses requests beyond the queue length or past the wait deadline with provider_unavailable', async () => {
    const { provider, events } = makeProvider({
      maxProcesses: 1,
      warmProcesses: 0,
      queue: { maxWaiting: 1, maxWaitMs: 300 },
    });
    const holder = provider
      .synthesize({ text: longText(20), providerVoiceId: VOICE }, new AbortController().signal)
      [Symbol.asyncIterator]();
    expect((await holder.next()).done).toBe(false);

    const request = { text: SENTENCE, providerVoiceId: VOICE };
    const queued = collectAudio(provider.synthesize(request, new AbortController().signal));
    await waitFor(() => provider.stats.waiting === 1, { what: 'one request waiting' });
    const beyond = await collectAudio(
      provider.synthesize(request, new AbortController().signal),
    ).catch((error: unknown) => error);
    expect(beyond).toBeInstanceOf(ProviderError);
    expect((beyond as ProviderError).toApiError()).toMatchObject({
      code: 'provider_unavailable',
      retryable: true,
    });
    // The queued one is refused once its deadline passes, the holder still being busy.
    const timedOut = await queued.catch((error: unknown) => error);
    expect((timedOut as ProviderError).failure).toBe('overloaded');
    expect(provider.stats.waiting).toBe(0);
    expect(events).toHaveLength(1);

    while (!(await holder.next()).done) {}
    const next = await collectAudio(provider.synthesize(request, new AbortController().signal));
    expect(next.durationMs).toBeGreaterThan(500);
  });

  it('serves the next request of a voice from a warm pre-spawned process', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 2, warmProcesses: 1 });
    const request = { text: SENTENCE, providerVoiceId: VOICE };
    await collectAudio(provider.synthesize(request, new AbortController().signal));
    await waitFor(() => provider.stats.warm === 1, { what: 'one warm engine' });
    const [warmPid] = childEngineProcesses();
    await collectAudio(provider.synthesize(request, new AbortController().signal));
    expect(events[1]!.pid).toBe(warmPid);
    // A different voice evicts nothing while a slot is free, and is spawned cold.
    await collectAudio(
      provider.synthesize(
        { text: SENTENCE, providerVoiceId: 'en-gb+m3' },
        new AbortController().signal,
      ),
    );
    expect(provider.stats.alive).toBeLessThanOrEqual(2);
  });

  it('evicts an idle warm spare when a request needs its slot', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1, warmProcesses: 1 });
    await collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: VOICE }, new AbortController().signal),
    );
    await waitFor(() => provider.stats.warm === 1, { what: 'one warm engine' });
    const other = await collectAudio(
      provider.synthesize(
        { text: SENTENCE, providerVoiceId: 'en-gb+m3' },
        new AbortController().signal,
      ),
    );
    expect(other.durationMs).toBeGreaterThan(500);
    expect(events.map((e) => e.providerVoiceId)).toEqual([VOICE, 'en-gb+m3']);
  });

  it('kills idle warm spares after warmIdleMs and on close()', async () => {
    const { provider } = makeProvider({ warmIdleMs: 50 });
    await collectAudio(
      provider.synthesize({ text: SENTENCE, providerVoiceId: VOICE }, new AbortController().signal),
    );
    await waitFor(() => provider.stats.warm === 1, { what: 'one warm engine' });
    await waitFor(() => provider.stats.alive === 0 && childEngineProcesses().length === 0, {
      what: 'no engine alive',
    });

    const second = makeProvider();
    await collectAudio(
      second.provider.synthesize(
        { text: SENTENCE, providerVoiceId: VOICE },
        new AbortController().signal,
      ),
    );
    await waitFor(() => second.provider.stats.warm === 1, {
      what: 'one warm engine in the second pool',
    });
    await second.provider.close();
    expect(second.provider.stats.alive).toBe(0);
    expect(childEngineProcesses()).toHaveLength(0);
  });
});

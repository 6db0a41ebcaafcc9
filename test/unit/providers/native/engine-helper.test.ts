import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../../src/tts/providers/errors.ts';
import {
  defaultEngineHelperPath,
  type EngineProcessEvent,
  NativeProvider,
  type NativeProviderOptions,
} from '../../../../src/tts/providers/native/index.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { collectAudio, rms } from '../pcm-stats.ts';
import { childProcesses, helperProcesses, longText, pidExists } from './processes.ts';

const helperPath = defaultEngineHelperPath();
if (helperPath === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
const VOICE = 'en-us+f3';
const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs away.';
const providers: NativeProvider[] = [];

function makeProvider(options: NativeProviderOptions = {}) {
  const events: EngineProcessEvent[] = [];
  const provider = new NativeProvider({
    engineHelper: helperPath,
    ...options,
    onEngineProcess: (e) => events.push(e),
  });
  providers.push(provider);
  return { provider, events };
}

function speak(
  provider: NativeProvider,
  text: string,
  options: { voice?: string; speed?: number; signal?: AbortSignal } = {},
) {
  return provider.synthesize(
    {
      text,
      providerVoiceId: options.voice ?? VOICE,
      ...(options.speed ? { speed: options.speed } : {}),
    },
    options.signal ?? new AbortController().signal,
  );
}

/** What `espeak-ng --stdout` writes for the same text and parameters, WAV header cut. */
function cliPcm(args: readonly string[], text: string): Buffer {
  const result = spawnSync('espeak-ng', ['--stdout', '--stdin', '-b', '1', ...args], {
    input: text,
  });
  return result.stdout.subarray(44);
}

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await waitFor(() => helperProcesses().length === 0, { what: 'no engine helper left' });
});

describe('long-lived espeak-ng engine', () => {
  it('speaks many utterances through one process, each exactly as espeak-ng speaks it', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    const expected = cliPcm(['-v', VOICE], SENTENCE);
    for (let i = 0; i < 40; i++) {
      const audio = await collectAudio(speak(provider, SENTENCE));
      expect(audio.sampleRateHz).toBe(22_050);
      expect(audio.pcm.equals(expected)).toBe(true);
    }
    expect(new Set(events.map((e) => e.pid)).size).toBe(1);
    expect(pidExists(events[0]!.pid!)).toBe(true);
    expect(provider.stats).toMatchObject({ alive: 1, busy: 0, warm: 1, waiting: 0 });
  }, 60_000);

  it('honours voice, speed and a derived voice pitch and rate, as espeak-ng does', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    const cases: { voice: string; speed?: number; args: string[] }[] = [
      { voice: 'en-gb+m3', speed: 2, args: ['-v', 'en-gb+m3', '-s', '350'] },
      { voice: 'en-us+m3/p20/w150', args: ['-v', 'en-us+m3', '-s', '150', '-p', '20'] },
      { voice: 'en-us+m3/p80/w150', speed: 0.5, args: ['-v', 'en-us+m3', '-s', '80', '-p', '80'] },
      { voice: 'de+f2', args: ['-v', 'de+f2'] },
    ];
    // Run twice: what one request set (voice, language, rate, pitch) never leaks into the next.
    for (const c of [...cases, ...cases]) {
      const audio = await collectAudio(speak(provider, SENTENCE, c));
      expect(rms(audio.pcm)).toBeGreaterThan(300);
      expect(audio.pcm.equals(cliPcm(c.args, SENTENCE))).toBe(true);
    }
    expect(events.map((e) => e.wordsPerMinute)).toEqual([350, 150, 80, 175, 350, 150, 80, 175]);
    expect(new Set(events.map((e) => e.pid)).size).toBe(1);
  }, 60_000);

  it('streams audio while synthesizing and reads tags and dashes as text', async () => {
    const { provider } = makeProvider();
    let chunks = 0;
    for await (const _ of speak(provider, longText(10))) chunks += 1;
    expect(chunks).toBeGreaterThan(20);
    const plain = await collectAudio(speak(provider, 'hello'));
    const tagged = await collectAudio(
      speak(provider, '<speak><prosody rate="x-slow">hello</prosody></speak>'),
    );
    expect(tagged.durationMs).toBeGreaterThan(plain.durationMs * 1.5);
    const dashes = await collectAudio(speak(provider, '--version -s 900 hello there'));
    expect(dashes.durationMs).toBeGreaterThan(2000);
    expect((await collectAudio(speak(provider, ''))).pcm.length).toBe(0);
  });

  it('stops a cancelled utterance and serves the next request from the same process', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      const iterator = speak(provider, longText(30), { signal: controller.signal })[
        Symbol.asyncIterator
      ]();
      expect((await iterator.next()).done).toBe(false);
      const reason = new Error('client disconnected');
      controller.abort(reason);
      await expect(iterator.next()).rejects.toBe(reason);
      expect(provider.stats.busy).toBe(0);
    }
    // Breaking out early stops it too.
    for await (const _ of speak(provider, longText(30))) break;
    // No audio of the cancelled utterances reaches the next request.
    const audio = await collectAudio(speak(provider, SENTENCE));
    expect(audio.pcm.equals(cliPcm(['-v', VOICE], SENTENCE))).toBe(true);
    expect(new Set(events.map((e) => e.pid)).size).toBe(1);
    expect(helperProcesses()).toEqual([events[0]!.pid]);
  }, 60_000);

  it('fails only the request whose engine was killed mid-utterance; a new engine serves the next', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 2 });
    const victim = (async () => {
      let killed = false;
      for await (const _ of speak(provider, longText(60))) {
        if (!killed) {
          process.kill(events[0]!.pid!, 'SIGKILL');
          killed = true;
        }
      }
    })();
    const error = await victim.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('unavailable');
    expect((error as ProviderError).message).toBe('espeak-ng engine was killed by SIGKILL');
    expect((error as ProviderError).toApiError()).toMatchObject({
      code: 'provider_error',
      retryable: true,
    });
    await waitFor(() => !pidExists(events[0]!.pid!), {
      what: 'the first engine process to be reaped',
    });
    const later = await collectAudio(speak(provider, SENTENCE));
    expect(later.durationMs).toBeGreaterThan(1000);
    expect(events[1]!.pid).not.toBe(events[0]!.pid);
    expect(provider.stats).toMatchObject({ alive: 1, busy: 0 });
  });

  it('fails only the utterance whose synthesis process died; the engine and its voice template go on', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    const engine = async () => {
      await collectAudio(speak(provider, SENTENCE));
      return events[0]!.pid!;
    };
    const pid = await engine();
    // Inside the engine: one template per voice, and one process per running utterance.
    const [template] = childProcesses(pid);
    expect(template).toBeDefined();
    const victim = (async () => {
      let killed = false;
      for await (const _ of speak(provider, longText(60))) {
        // Once: a killed utterance stays listed until its template reaps it.
        const utterance = killed ? undefined : childProcesses(template!)[0];
        if (utterance !== undefined) {
          process.kill(utterance, 'SIGKILL');
          killed = true;
        }
      }
    })();
    const error = await victim.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe('espeak-ng: synthesis crashed');
    expect((error as ProviderError).toApiError()).toMatchObject({
      code: 'provider_error',
      retryable: true,
    });
    // A template that died while idle is replaced by the next request of its voice.
    process.kill(template!, 'SIGKILL');
    await waitFor(() => !pidExists(template!), { what: 'the template process to be reaped' });
    const audio = await collectAudio(speak(provider, SENTENCE));
    expect(audio.pcm.equals(cliPcm(['-v', VOICE], SENTENCE))).toBe(true);
    expect(new Set(events.map((e) => e.pid))).toEqual(new Set([pid]));
  });

  it('never runs more engines than maxProcesses; extra requests wait', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 2 });
    let most = 0;
    const watcher = setInterval(() => {
      most = Math.max(most, helperProcesses().length);
    }, 5);
    try {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => collectAudio(speak(provider, longText(3)))),
      );
      for (const audio of results) expect(audio.durationMs).toBeGreaterThan(10_000);
    } finally {
      clearInterval(watcher);
    }
    expect(most).toBeLessThanOrEqual(2);
    expect(new Set(events.map((e) => e.pid)).size).toBe(2);
  });

  it('gives the engine back when an utterance is synthesized, before its consumer has read it', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    const expected = cliPcm(['-v', VOICE], SENTENCE);
    // A consumer that reads one chunk and then stalls (a slow client, a busy encoder).
    const stalled = speak(provider, SENTENCE);
    const head = (await stalled.next()).value as { data: Buffer };
    // With the only engine leased to the stalled consumer, this request would wait.
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(new Error('still waiting for the engine')), 5_000);
    try {
      for (let i = 0; i < 5; i++) {
        const audio = await collectAudio(speak(provider, SENTENCE, { signal: waited.signal }));
        expect(audio.pcm.equals(expected)).toBe(true);
      }
    } finally {
      clearTimeout(timer);
    }
    const rest = await collectAudio(stalled);
    expect(Buffer.concat([head.data, rest.pcm]).equals(expected)).toBe(true);
    expect(new Set(events.map((e) => e.pid)).size).toBe(1);
  }, 30_000);

  it('fails an unknown voice with provider_error and keeps the engine', async () => {
    const { provider, events } = makeProvider({ maxProcesses: 1 });
    const error = await collectAudio(speak(provider, SENTENCE, { voice: 'xx-nope' })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).failure).toBe('unavailable');
    expect((error as ProviderError).message).toBe('espeak-ng: unknown voice');
    const audio = await collectAudio(speak(provider, SENTENCE));
    expect(audio.durationMs).toBeGreaterThan(1000);
    expect(events[1]!.pid).toBe(events[0]!.pid);
  });

  it('fails with provider_error when the engine binary is missing', async () => {
    const { provider } = makeProvider({ engineHelper: '/nonexistent/awp-espeak-engine' });
    for (let i = 0; i < 2; i++) {
      const error = await collectAudio(speak(provider, SENTENCE)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toBe(
        'espeak-ng engine not found: /nonexistent/awp-espeak-engine',
      );
    }
    expect(provider.stats).toMatchObject({ alive: 0, busy: 0 });
  });
});

import { initializeLogger, voice } from '@livekit/agents';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ToolTurnOptions, ToolTurns } from '../../../worker/agent-session/tool-turns.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function turns(options: Partial<ToolTurnOptions> = {}) {
  const said: string[] = [];
  const tools = new ToolTurns({
    fillerAfterMs: 0,
    filler: 'One moment, let me check that.',
    say: (text) => {
      said.push(text);
      return undefined;
    },
    agentSpeaking: () => false,
    ...options,
  });
  return { tools, said };
}

describe('ToolTurns', () => {
  beforeAll(() => {
    initializeLogger({ pretty: false, level: 'fatal' });
  });

  it('runs at most four calls at once; the fifth starts when one ends', async () => {
    const { tools } = turns();
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const work = (n: number, ms: number) => async () => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await sleep(ms);
      running--;
      return n;
    };
    const never = new AbortController().signal;
    const results = await Promise.all([
      tools.run(undefined, never, work(1, 80)),
      tools.run(undefined, never, work(2, 20)),
      tools.run(undefined, never, work(3, 80)),
      tools.run(undefined, never, work(4, 80)),
      tools.run(undefined, never, work(5, 10)),
    ]);
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(4);
    expect(started).toEqual([1, 2, 3, 4, 5]);
  });

  it('says the filler once per turn for calls slower than the threshold, and not while speaking', async () => {
    let speaking = false;
    const { tools, said } = turns({ fillerAfterMs: 30, agentSpeaking: () => speaking });
    const never = new AbortController().signal;
    const turn = voice.SpeechHandle.create();
    await Promise.all([
      tools.run(turn, never, () => sleep(80)),
      tools.run(turn, never, () => sleep(80)),
      tools.run(voice.SpeechHandle.create(), never, () => sleep(5)),
    ]);
    expect(said).toEqual(['One moment, let me check that.']);
    speaking = true;
    await tools.run(voice.SpeechHandle.create(), never, () => sleep(80));
    expect(said).toHaveLength(1);
    speaking = false;
    await tools.run(voice.SpeechHandle.create(), never, () => sleep(80));
    expect(said).toHaveLength(2);
  });

  it('says no filler for an Agent without a phrase', async () => {
    const { tools, said } = turns({ fillerAfterMs: 10, filler: undefined });
    await tools.run(voice.SpeechHandle.create(), new AbortController().signal, () => sleep(40));
    expect(said).toEqual([]);
  });

  it('cancels running calls when the user speaks: their signal aborts and their turn is interrupted', async () => {
    const { tools, said } = turns({ fillerAfterMs: 50, maxConcurrent: 1 });
    const turn = voice.SpeechHandle.create();
    const never = new AbortController().signal;
    const running = tools.run(
      turn,
      never,
      (signal) =>
        new Promise<string>((resolve) =>
          signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
        ),
    );
    let ranWaiting = false;
    const waiting = tools.run(turn, never, async () => {
      ranWaiting = true;
      return 'ran';
    });
    await sleep(10);
    tools.userSpoke();
    expect(await running).toBe('stopped');
    expect(await waiting).toBeUndefined();
    expect(ranWaiting).toBe(false);
    expect(turn.interrupted).toBe(true);
    await sleep(70);
    expect(said).toEqual([]);
    // The slot was given back: a later call runs.
    expect(await tools.run(undefined, never, async () => 'later')).toBe('later');
  });
});

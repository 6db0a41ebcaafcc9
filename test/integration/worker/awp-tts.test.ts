// The worker's speech model (worker/models/awp-tts.ts) against the real api's
// `/v1/tts/stream`: a voice that times its words (the native engine) reports each word of
// a sentence to the playout ledger; a voice that cannot (a native voice on an api that runs
// one espeak-ng process per request, listed without `word_alignment`) refuses the alignment
// once, and the sentence is spoken without it.

import { randomUUID } from 'node:crypto';
import { initializeLogger } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpokenWord } from '../../../worker/agent-session/playout.ts';
import { AwpTts } from '../../../worker/models/awp-tts.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';

const SENTENCE = 'The harbour opens at nine, and the boats leave at ten.';

describe('Agent speech model against /v1/tts/stream (worker)', () => {
  let database: TestDatabase;
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let ws: SeededWorkspace;
  let server: RunningServer;

  beforeAll(async () => {
    initializeLogger({ pretty: false, level: 'fatal' });
    database = await createTestDatabase('sqlite');
    handle = await openTestDatabase(database);
    ws = await seedWorkspace(handle);
    server = await startServer({ database });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await handle?.close();
    await database?.drop();
  });

  /** Speaks SENTENCE with `voiceId`; what the ledger was told and how many tokens it took. */
  const speak = async (voiceId: string, api: RunningServer = server) => {
    const audio: number[] = [];
    const words: SpokenWord[][] = [];
    let tokens = 0;
    const tts = new AwpTts({
      streamUrl: `${api.url.replace(/^http/, 'ws')}/v1/tts/stream`,
      token: async () => {
        tokens++;
        const response = await fetch(`${api.url}/v1/tts/stream-tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.productionKey}` },
        });
        return ((await response.json()) as { token: string }).token;
      },
      voiceId,
      partnerSessionId: randomUUID(),
      onAudio: (order, text, samples) => {
        expect([order, text]).toEqual([1, SENTENCE]);
        audio.push(samples);
      },
      onWords: (order, text, timed) => {
        expect([order, text]).toEqual([1, SENTENCE]);
        words.push([...timed]);
      },
    });
    let frameSamples = 0;
    for await (const chunk of tts.synthesize(SENTENCE)) {
      frameSamples += chunk.frame.samplesPerChannel;
    }
    const samples = audio.reduce((sum, n) => sum + n, 0);
    expect(samples).toBe(frameSamples);
    return { tts, samples, words: words.flat(), tokens };
  };

  it('reports each word of a sentence with its place in the text and its start', async () => {
    const { tts, samples, words, tokens } = await speak(NATIVE_VOICE);
    expect(tts.aligns).toBe(true);
    expect(tokens).toBe(1);
    expect(words.map((w) => SENTENCE.slice(w.textStart, w.textEnd))).toEqual([
      'The',
      'harbour',
      'opens',
      'at',
      'nine',
      'and',
      'the',
      'boats',
      'leave',
      'at',
      'ten',
    ]);
    expect(words[0]?.startMs).toBeLessThan(100);
    for (const [index, word] of words.entries()) {
      if (index > 0) expect(word.startMs).toBeGreaterThan(words[index - 1]!.startMs);
    }
    expect(words.at(-1)!.startMs).toBeLessThan((samples / 48_000) * 1000);
  }, 60_000);

  it('speaks without timings when the voice cannot align, asking once', async () => {
    const unaligned = await startServer({ database, env: { NATIVE_ENGINE_PERSISTENT: 'false' } });
    let spoken: Awaited<ReturnType<typeof speak>>;
    try {
      spoken = await speak(NATIVE_VOICE, unaligned);
    } finally {
      await unaligned.stop();
    }
    const { tts, samples, words, tokens } = spoken;
    // About 3 s of speech at 48 kHz.
    expect(samples).toBeGreaterThan(48_000 * 2);
    expect(words).toEqual([]);
    expect(tts.aligns).toBe(false);
    // The refused request and the one that spoke.
    expect(tokens).toBe(2);
  }, 120_000);
});

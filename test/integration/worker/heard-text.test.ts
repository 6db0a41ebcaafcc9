// What the end user heard of an interrupted Agent reply, measured on the audio they
// received: a real livekit-server, the api, the agent worker, the OpenAI chat fake as the
// model and @livekit/rtc-node as the user. The native voice times its words
// (`word_alignment`); the same sentence synthesized on its own by `POST
// /v1/tts/with-timestamps` gives the reference audio and word timings (espeak-ng is
// deterministic), against which the received samples are placed.

import { describe, expect } from 'vitest';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import { joinAgentSession } from '../../helpers/realtime-rig.ts';
import { ROOM_RATE_HZ } from '../../helpers/room-client.ts';

/** One sentence (the framework synthesizes per sentence), long, with uneven word lengths. */
const SENTENCE =
  'The year 1987 was when the old lighthouse keeper finally painted the tall tower bright red and blue for all the passing ships to see.';
/** Louder than the encoder's noise, quieter than any voiced sound. */
const LOUD = 600;
/** One 20 ms frame, in ms: the tolerance of the comparison. */
const FRAME_MS = 20;

interface Timing {
  text: string;
  start_ms: number;
  end_ms: number;
}

const firstLoud = (pcm: Int16Array, from = 0): number => {
  for (let i = from; i < pcm.length; i++) if (Math.abs(pcm[i] as number) > LOUD) return i;
  return -1;
};
const lastLoud = (pcm: Int16Array): number => {
  for (let i = pcm.length - 1; i >= 0; i--) if (Math.abs(pcm[i] as number) > LOUD) return i;
  return -1;
};
const concat = (chunks: Int16Array[]): Int16Array => {
  const all = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
};
const samplesToMs = (samples: number) => (samples / ROOM_RATE_HZ) * 1000;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-heard-text-worker-test',
  stt: 'none',
});

describe('Heard text of an interrupted reply (worker)', () => {
  let rig: RealtimeRig;
  let agentId: string;

  const createAgent = async (slug: string, voiceId: string) => {
    const created = await rig.api('POST', '/v1/agents', {
      slug,
      voice_id: voiceId,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      language: 'en',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Teller', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await rig.api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };
  /** Starts a session of `id` and joins it; resolves once the greeting played. */
  const joinSession = (id: string) => joinAgentSession(rig, id, 'Hi.');

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
    agentId = await createAgent('teller', NATIVE_VOICE);
  }, 180_000);

  it('keeps exactly the words whose start the user received before the interruption', async () => {
    const reference = await rig.api('POST', '/v1/tts/with-timestamps', {
      voice_id: NATIVE_VOICE,
      text: SENTENCE,
      output_format: 'pcm_48000',
      alignment: 'word',
    });
    expect(reference.status, JSON.stringify(reference.body)).toBe(200);
    const referenceBytes = Buffer.from(reference.body.audio as string, 'base64');
    const referencePcm = new Int16Array(
      referenceBytes.buffer,
      referenceBytes.byteOffset,
      referenceBytes.byteLength / 2,
    );
    const timings = reference.body.timings as Timing[];
    expect(timings.length).toBeGreaterThan(20);

    const { sessionId, client } = await joinSession(agentId);
    try {
      client.keepAgentPcm = true;
      rig.llm.script({ text: [SENTENCE] });
      await client.sendText('Tell me about the lighthouse.');
      // 1.2 s into the reply's audio, while "1987" is read out (1.4 s of audio for four
      // characters, so a share of characters would put the cut two words further), the
      // user interrupts.
      await client.waitUntil(
        () => {
          const pcm = concat(client.agentPcm);
          const start = firstLoud(pcm);
          return start >= 0 && pcm.length - start > 1.2 * ROOM_RATE_HZ;
        },
        30_000,
        '1.2 s of the reply',
      );
      expect(await client.rpc(`agent-${sessionId}`, 'awp.interrupt')).toEqual({ ok: true });
      const turn = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text.startsWith('The')),
        15_000,
        'the interrupted reply on awp.transcript',
      );
      // A second more of the (now silent) track: everything played has arrived.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const received = concat(client.agentPcm);
      client.keepAgentPcm = false;

      // Place the received audio on the reference: its first loud sample is the
      // reference's; the last loud sample received is how far the reply played, up to the
      // next loud sample of the reference (a cut in a pause cannot be placed closer).
      const offset = firstLoud(referencePcm) - firstLoud(received);
      const playedFrom = lastLoud(received) + offset;
      const next = firstLoud(referencePcm, playedFrom + ROOM_RATE_HZ / 1000);
      const playedTo = next < 0 ? referencePcm.length : next;
      const where = JSON.stringify({
        playedFromMs: samplesToMs(playedFrom),
        playedToMs: samplesToMs(playedTo),
        text: turn.text,
        timings,
      });
      expect(samplesToMs(playedFrom), where).toBeGreaterThan(1200);
      expect(samplesToMs(playedTo), where).toBeLessThan(samplesToMs(referencePcm.length) - 1000);
      // Heard: every word whose start lies before the interruption point, within one frame.
      const mustHear = timings.filter((t) => t.start_ms < samplesToMs(playedFrom) - FRAME_MS);
      const mayHear = timings.filter((t) => t.start_ms <= samplesToMs(playedTo) + FRAME_MS);
      const heardWords = turn.text.split(/\s+/).map((w) => w.replace(/[.,]$/, ''));
      expect(heardWords.length, where).toBeGreaterThanOrEqual(mustHear.length);
      expect(heardWords.length, where).toBeLessThanOrEqual(mayHear.length);
      expect(heardWords, where).toEqual(timings.slice(0, heardWords.length).map((t) => t.text));
      expect(SENTENCE.startsWith(turn.text)).toBe(true);

      // The stored turn is the same text, marked interrupted.
      const rows = await rig.handle.db
        .selectFrom('agent_session_messages')
        .select(['id', 'text', 'interrupted'])
        .where('session_id', '=', sessionId)
        .where('role', '=', 'agent')
        .execute();
      const stored = rows.filter((r) => r.text.startsWith('The'));
      expect(
        stored.map((r) => ({ id: r.id, text: r.text, interrupted: Number(r.interrupted) })),
      ).toEqual([{ id: turn.id, text: turn.text, interrupted: 1 }]);
    } finally {
      await client.leave();
    }
  }, 180_000);
});

// What the end user heard of an interrupted Agent reply, measured on the audio they
// received: a real livekit-server, the api, the agent worker, the OpenAI chat fake as the
// model and @livekit/rtc-node as the user. The native voice times its words
// (`word_alignment`); the same sentence synthesized on its own by `POST
// /v1/tts/with-timestamps` gives the reference audio and word timings (espeak-ng is
// deterministic), against which the received samples are placed by their loudness: the
// received audio is not the sent audio sample for sample (see `contentEnd`).

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

/** Log RMS of each `block` samples of `pcm` from `from` to `to`: its loudness envelope. */
const envelope = (pcm: Int16Array, from: number, to: number, block: number): Float64Array => {
  const env = new Float64Array(Math.floor((to - from) / block));
  for (let b = 0; b < env.length; b++) {
    let sum = 0;
    for (let i = from + b * block; i < from + (b + 1) * block; i++) sum += (pcm[i] as number) ** 2;
    env[b] = Math.log1p(Math.sqrt(sum / block));
  }
  return env;
};
/**
 * What passing over a received block that matches no reference audio costs: audio the
 * receiver made up (its jitter buffer concealing a late packet, fading to silence) or the
 * silence of a gap in what a starved worker sent. Above what a block of Opus-coded
 * speech differs from its reference (about 0.35, 3 dB, near the cut), far below what
 * silence does (5 to 9).
 */
const INSERTED_COST = 0.75;
/** What passing over reference audio never received costs (the jitter buffer speeding up). */
const DROPPED_COST = 1.5;

/**
 * How far into `reference` (in its samples) the audio in `received` reached, to a block of
 * `blockMs`. Under load the received audio holds stretches the worker never sent as speech:
 * the receiver's jitter buffer conceals late packets (a fade to silence) and then plays
 * them late, and a gap in what a starved worker sent comes out as silence (both seen in
 * one run: a 400 ms fade and a sudden 200 ms silence). Counting received samples
 * puts the cut that much too far (measured: 795 ms of 2,068 at load average 12). So the
 * received blocks, from the first loud one to the last, are aligned on the reference's in
 * order (each matched to one reference block, or passed over as inserted, or a reference
 * block passed over as dropped) at the least cost; the last received block reached the
 * returned position.
 */
const contentEnd = (received: Int16Array, reference: Int16Array, blockMs = 2.5): number => {
  const block = (ROOM_RATE_HZ * blockMs) / 1000;
  const referenceStart = firstLoud(reference);
  const got = envelope(received, firstLoud(received), lastLoud(received) + 1, block);
  const sent = envelope(reference, referenceStart, reference.length, block);
  // `row[j]`: the cost of aligning the received blocks so far with the first j sent ones.
  let row = Float64Array.from({ length: sent.length + 1 }, (_, j) => j * DROPPED_COST);
  let next = new Float64Array(sent.length + 1);
  for (const level of got) {
    next[0] = (row[0] as number) + INSERTED_COST;
    for (let j = 1; j <= sent.length; j++) {
      next[j] = Math.min(
        (row[j - 1] as number) + Math.abs(level - (sent[j - 1] as number)),
        (row[j] as number) + INSERTED_COST,
        (next[j - 1] as number) + DROPPED_COST,
      );
    }
    [row, next] = [next, row];
  }
  // The received audio ends where the reply was cut: anywhere in the reference.
  let reached = 0;
  for (let j = 1; j < row.length; j++) {
    if ((row[j] as number) < (row[reached] as number)) reached = j;
  }
  return referenceStart + reached * block;
};

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
      // user interrupts: once what was received reached 1.2 s of the reply's audio (the
      // worker has sent at least that). Placed in the first 2.5 s by 10 ms blocks, a
      // fraction of a millisecond per frame received.
      const opening = referencePcm.subarray(0, 2.5 * ROOM_RATE_HZ);
      await client.waitUntil(
        () => {
          const pcm = concat(client.agentPcm);
          const start = firstLoud(pcm);
          if (start < 0 || pcm.length - start <= 1.2 * ROOM_RATE_HZ) return false;
          return samplesToMs(contentEnd(pcm, opening, 10)) > 1200;
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
      // A second of the (now silent) track after its last loud sample: everything played
      // has arrived, also what the receiver's jitter buffer held late.
      const received = await client.waitUntil(
        () => {
          const pcm = concat(client.agentPcm);
          return pcm.length - lastLoud(pcm) > ROOM_RATE_HZ && pcm;
        },
        15_000,
        'a second of silence after the reply',
      );
      client.keepAgentPcm = false;

      // Place the received audio on the reference: how far its content reached is how far
      // the reply played, up to the next loud sample of the reference (a cut in a pause
      // cannot be placed closer).
      const playedFrom = contentEnd(received, referencePcm);
      const next = firstLoud(referencePcm, playedFrom + ROOM_RATE_HZ / 1000);
      const playedTo = next < 0 ? referencePcm.length : next;
      const where = JSON.stringify({
        playedFromMs: samplesToMs(playedFrom),
        playedToMs: samplesToMs(playedTo),
        receivedMs: samplesToMs(lastLoud(received) - firstLoud(received)),
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

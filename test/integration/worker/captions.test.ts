// The Agent's live captions (`lk.transcription`, the client library's `transcriptProgress`)
// against the audio the end user received: a real livekit-server, the api, the agent worker,
// the OpenAI chat fake as the model and @livekit/rtc-node as the user. The native voice
// times its words; each sentence synthesized on its own by `POST /v1/tts/with-timestamps`
// (espeak-ng is deterministic) places the received samples, and so when each word's start
// arrived, against which the arrival of its caption word is measured.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { type RealtimeRig, startRealtimeRig } from '../../helpers/realtime-rig.ts';
import { ROOM_RATE_HZ, RoomClient } from '../../helpers/room-client.ts';

/** Two sentences: the framework synthesizes them one by one, so a seam lies between. */
const SENTENCES = [
  'The year 1987 was when the old lighthouse keeper finally painted the tower red.',
  'Ships passing at night could see it from far away.',
];
/** Louder than the encoder's noise, quieter than any voiced sound. */
const LOUD = 600;
/**
 * How far a caption word may arrive from the start of its word's audio. The worker times
 * each word at its room audio source, exact to the sample, and adds the audio's least
 * transport time (50 ms); what remains is how much longer the receiver's jitter buffer holds
 * the audio, which varies from one stretch of speech to the next (from 0 to 130 ms more on
 * this busy test machine, the same for all words of a sentence).
 */
const CAPTION_BOUND_MS = 100;

interface Timing {
  text: string;
  start_ms: number;
  end_ms: number;
}

const firstLoud = (pcm: Int16Array, from = 0): number => {
  for (let i = Math.max(0, from); i < pcm.length; i++) {
    if (Math.abs(pcm[i] as number) > LOUD) return i;
  }
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
const msToSamples = (ms: number) => Math.round((ms * ROOM_RATE_HZ) / 1000);

describe('Captions of the Agent (worker)', () => {
  let rig: RealtimeRig;
  let agentId: string;

  /** Starts a session and joins it; resolves once the greeting played. */
  const joinSession = async () => {
    const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    const started = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const { session_id: sessionId, livekit } = started.body as {
      session_id: string;
      livekit: { url: string; token: string };
    };
    const client = await RoomClient.join(livekit.url, livekit.token);
    await client.waitUntil(
      () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
      90_000,
      'the greeting',
    );
    await client.waitUntil(
      () => client.agentStates.at(-1)?.state === 'listening',
      30_000,
      'the agent to listen',
    );
    return { sessionId, client };
  };

  /** The reference audio (48 kHz) and word timings of `text` said on its own. */
  const reference = async (text: string) => {
    const response = await rig.api('POST', '/v1/tts/with-timestamps', {
      voice_id: NATIVE_VOICE,
      text,
      output_format: 'pcm_48000',
      alignment: 'word',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const bytes = Buffer.from(response.body.audio as string, 'base64');
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
    return { pcm, timings: response.body.timings as Timing[] };
  };

  /** The agent's caption chunks since `from` (index into `captionChunks`), by segment. */
  const agentCaptions = (client: RoomClient, sessionId: string, from: number) => {
    const chunks = client.captionChunks.slice(from).filter((c) => c.from === `agent-${sessionId}`);
    const segments = [...new Set(chunks.map((c) => c.attributes['lk.segment_id']))];
    return { chunks, segments };
  };

  beforeAll(async () => {
    rig = await startRealtimeRig({
      dialect: 'postgres',
      agentName: 'awp-captions-worker-test',
      stt: 'none',
    });
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'lighthouse',
      voice_id: NATIVE_VOICE,
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
    agentId = created.body.id as string;
  }, 180_000);

  afterAll(async () => {
    if (process.env.WORKER_LOG)
      (await import('node:fs')).writeFileSync(process.env.WORKER_LOG, rig?.worker.output() ?? '');
    await rig?.close();
  }, 60_000);

  it('shows each word when the user receives the start of its audio, then the whole reply as final', async () => {
    const references = [
      await reference(SENTENCES[0] as string),
      await reference(SENTENCES[1] as string),
    ];
    const { sessionId, client } = await joinSession();
    try {
      const captionsFrom = client.captionChunks.length;
      client.keepAgentPcm = true;
      rig.llm.script({ text: [`${SENTENCES[0]} `, SENTENCES[1] as string] });
      await client.sendText('Tell me about the lighthouse.');
      const reply = SENTENCES.join(' ');
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text === reply),
        60_000,
        'the whole reply on awp.transcript',
      );
      // Everything played has arrived by now (the transcript follows the playout).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      client.keepAgentPcm = false;
      const received = concat(client.agentPcm);
      // Where each received frame starts, in samples, and when it arrived.
      const frameStarts: number[] = [];
      let at = 0;
      for (const frame of client.agentPcm) {
        frameStarts.push(at);
        at += frame.length;
      }
      const arrivalOf = (sample: number): number => {
        let frame = 0;
        while (frame + 1 < frameStarts.length && (frameStarts[frame + 1] as number) <= sample) {
          frame++;
        }
        return (
          (client.agentPcmAtMs[frame] as number) +
          ((sample - (frameStarts[frame] as number)) / ROOM_RATE_HZ) * 1000
        );
      };

      // Each sentence placed on the received audio by its first loud sample, the second
      // searched from the end of the first (a pause between them would shift it).
      const words: { text: string; startArrivedMs: number }[] = [];
      let searchFrom = 0;
      for (const { pcm, timings } of references) {
        const start = firstLoud(received, searchFrom) - firstLoud(pcm);
        expect(start, 'the sentence in the received audio').toBeGreaterThanOrEqual(0);
        for (const timing of timings) {
          words.push({
            text: timing.text,
            startArrivedMs: arrivalOf(start + msToSamples(timing.start_ms)),
          });
        }
        searchFrom = start + pcm.length - msToSamples(50);
      }

      const { chunks, segments } = agentCaptions(client, sessionId, captionsFrom);
      expect(segments.length).toBe(1);
      const delta = chunks.filter((c) => c.attributes['lk.transcription_final'] === 'false');
      const final = chunks.filter((c) => c.attributes['lk.transcription_final'] === 'true');
      expect(words.map((w) => w.text)).toEqual(
        reply.split(' ').map((word) => word.replace(/[.,]$/, '')),
      );
      // Each word's caption arrives with the start of its audio: the n-th word shown is the
      // first caption text holding n words.
      const lags = words.map((word, i) => {
        let shown = '';
        const chunk = delta.find((c) => {
          shown += c.text;
          return shown.trim().split(/\s+/).length > i;
        });
        return chunk ? Math.round(chunk.atMs - word.startArrivedMs) : undefined;
      });
      const where = JSON.stringify({ lags, delta: delta.map((c) => c.text) });
      for (const lag of lags) {
        expect(Math.abs(lag ?? Number.POSITIVE_INFINITY), where).toBeLessThanOrEqual(
          CAPTION_BOUND_MS,
        );
      }
      // One chunk per word, in order, with its punctuation; the final stream has the reply.
      expect(delta.map((c) => c.text)).toEqual(
        reply.split(' ').map((word, i) => (i === 0 ? word : ` ${word}`)),
      );
      expect(final.map((c) => c.text).join('')).toBe(reply);
    } finally {
      await client.leave();
    }
  }, 180_000);

  it('ends an interrupted reply’s caption at exactly the heard words, and captions a text-only answer', async () => {
    const { sessionId, client } = await joinSession();
    try {
      const captionsFrom = client.captionChunks.length;
      const audioFrom = performance.now();
      rig.llm.script({ text: [SENTENCES[0] as string] });
      await client.sendText('Tell me about the lighthouse.');
      await client.waitUntil(
        () => client.agentAudio.filter((f) => f.atMs > audioFrom && f.rms > 0.01).length > 120,
        30_000,
        '1.2 s of the reply',
      );
      expect(await client.rpc(`agent-${sessionId}`, 'awp.interrupt')).toEqual({ ok: true });
      const turn = await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text.startsWith('The')),
        15_000,
        'the interrupted reply on awp.transcript',
      );
      expect(turn.text.length).toBeLessThan((SENTENCES[0] as string).length);
      const finalOf = (from: number) =>
        client.waitUntil(
          () => {
            const final = agentCaptions(client, sessionId, from).chunks.filter(
              (c) => c.attributes['lk.transcription_final'] === 'true',
            );
            return final.length > 0 && final;
          },
          10_000,
          'the final caption',
        );
      const final = await finalOf(captionsFrom);
      expect(final.map((c) => c.text).join('')).toBe(turn.text);
      const { segments } = agentCaptions(client, sessionId, captionsFrom);
      expect(segments.length).toBe(1);

      // Text in, text out: no audio to pace by, the caption is the answer.
      const textFrom = client.captionChunks.length;
      rig.llm.script({ text: ['Text', ' only', ' answer.'] });
      await client.sendText('Please answer in text.', false);
      const textOnly = await finalOf(textFrom);
      expect(textOnly.map((c) => c.text).join('')).toBe('Text only answer.');
    } finally {
      await client.leave();
    }
  }, 180_000);
});

// The Agent's live captions (`lk.transcription`, the client library's `transcriptProgress`)
// against the audio the end user received: a real livekit-server, the api, the agent worker,
// the OpenAI chat fake as the model and @livekit/rtc-node as the user. The native voice
// times its words; each sentence synthesized on its own by `POST /v1/tts/with-timestamps`
// (espeak-ng is deterministic) places the received samples, and so when each word's start
// came out of the user's audio stack, against which the arrival of its caption is measured.

import { writeFileSync } from 'node:fs';
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
 * How early (negative) or late a caption word may reach the user against the start of its
 * word's audio. The worker sends each word 100 ms after its audio leaves the room's audio
 * source (worker/conversation/captions.ts): exact to the 10 ms the source sends at a time.
 * What it cannot see is the receiver: the audio waits for its 20 ms Opus packet and then in
 * the receiver's jitter buffer, which holds it 30 to 60 ms on an idle machine and grows
 * when packets arrive unevenly (this 2-core machine shared with other test runs): measured
 * over 8 runs, idle and beside a heavy test, words arrived between EARLY and LATE of their
 * audio (docs/decisions/agents.md, "Agent captions paced by playback").
 */
const EARLIEST_MS = -150;
const LATEST_MS = 300;
/** Half the span over which the receiver's audio clock is read (see `audioClock`). */
const CLOCK_WINDOW_MS = 500;

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

/**
 * When each received sample came out of the user's audio stack. The receiver's jitter
 * buffer hands out audio in real time, 10 ms at a time; a frame reaches this process's
 * event loop at that moment or later (the loop may be busy). So a sample came out at the
 * earliest arrival, over nearby frames, of the frame's start moved by the samples between:
 * the lower envelope of the arrival times, read over a second so that the jitter buffer's
 * own stretching of the audio does not carry over.
 */
const audioClock = (frames: Int16Array[], arrivals: number[]) => {
  const starts: number[] = [];
  let at = 0;
  for (const frame of frames) {
    starts.push(at);
    at += frame.length;
  }
  const window = msToSamples(CLOCK_WINDOW_MS);
  return (sample: number): number => {
    let earliest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i] as number;
      if (Math.abs(start - sample) > window) continue;
      earliest = Math.min(
        earliest,
        (arrivals[i] as number) + ((sample - start) / ROOM_RATE_HZ) * 1000,
      );
    }
    return earliest;
  };
};

/** Loudness envelope of `pcm`: log RMS per 2.5 ms block. */
const BLOCK = msToSamples(2.5);
const envelope = (pcm: Int16Array): Float64Array => {
  const env = new Float64Array(Math.floor(pcm.length / BLOCK));
  for (let b = 0; b < env.length; b++) {
    let sum = 0;
    for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) sum += (pcm[i] as number) ** 2;
    env[b] = Math.log1p(Math.sqrt(sum / BLOCK));
  }
  return env;
};
/** Pearson correlation of `a` against `b` from `at` on. */
const correlation = (a: Float64Array, b: Float64Array, at: number): number => {
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[at + i] ?? 0;
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  const n = a.length;
  const den = Math.sqrt((saa - (sa * sa) / n) * (sbb - (sb * sb) / n));
  return den === 0 ? 0 : (sab - (sa * sb) / n) / den;
};
/**
 * Where each word of a sentence starts in the received audio, in samples. The sentence is
 * placed by its first loud sample (`start`); each word is then found by its own loudness
 * envelope, searched from 30 ms before to 400 ms after where the word before it put the
 * sentence: the audio can hold gaps (a frame the worker sent late, the receiver's jitter
 * buffer stretching or concealing) that move the words after them.
 */
const placeWords = (
  received: Float64Array,
  reference: Float64Array,
  timings: Timing[],
  start: number,
): number[] => {
  let shift = Math.round(start / BLOCK);
  return timings.map((timing) => {
    const from = Math.round(msToSamples(timing.start_ms - 10) / BLOCK);
    const length = Math.round(
      Math.min(Math.max(timing.end_ms - timing.start_ms + 10, 100), 300) / 2.5,
    );
    const word = reference.subarray(Math.max(0, from), from + length);
    let best = shift;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let s = shift - 12; s <= shift + 160; s++) {
      const score = correlation(word, received, Math.max(0, from) + s);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    shift = best;
    return msToSamples(timing.start_ms) + shift * BLOCK;
  });
};

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

  /** The agent's caption chunks since `from` (index into `captionChunks`), by kind. */
  const agentCaptions = (client: RoomClient, sessionId: string, from: number) => {
    const chunks = client.captionChunks.slice(from).filter((c) => c.from === `agent-${sessionId}`);
    return {
      segments: [...new Set(chunks.map((c) => c.attributes['lk.segment_id']))],
      delta: chunks.filter((c) => c.attributes['lk.transcription_final'] === 'false'),
      final: chunks.filter((c) => c.attributes['lk.transcription_final'] === 'true'),
    };
  };

  beforeAll(async () => {
    rig = await startRealtimeRig({
      dialect: 'postgres',
      agentName: 'awp-captions-worker-test',
      stt: 'none',
      // No hand-over: on this shared machine a job's lease can lapse for a few seconds, and
      // a session handed to a new job mid-reply says nothing about its captions.
      env: { AGENT_SESSION_HANDOVER_AFTER_MS: '0' },
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
    if (process.env.WORKER_LOG) writeFileSync(process.env.WORKER_LOG, rig?.worker.output() ?? '');
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
      const cameOut = audioClock(client.agentPcm, client.agentPcmAtMs);

      // Each sentence placed on the received audio by its first loud sample, the second
      // searched from the end of the first (a pause between them would shift it).
      const words: { text: string; audioAtMs: number }[] = [];
      const receivedEnvelope = envelope(received);
      /** How far each word was found from where the sentence's start put it, in ms. */
      const moved: number[] = [];
      let searchFrom = 0;
      for (const { pcm, timings } of references) {
        const start = firstLoud(received, searchFrom) - firstLoud(pcm);
        expect(start, 'the sentence in the received audio').toBeGreaterThanOrEqual(0);
        const placed = placeWords(receivedEnvelope, envelope(pcm), timings, start);
        for (const [i, timing] of timings.entries()) {
          words.push({ text: timing.text, audioAtMs: cameOut(placed[i] as number) });
        }
        const last = timings.at(-1) as Timing;
        searchFrom = (placed.at(-1) as number) + pcm.length - msToSamples(last.start_ms + 50);
        moved.push(
          ...placed.map((at, i) =>
            Math.round(((at - start) / ROOM_RATE_HZ) * 1000 - (timings[i]?.start_ms ?? 0)),
          ),
        );
      }
      expect(words.map((w) => w.text)).toEqual(
        reply.split(' ').map((word) => word.replace(/[.,]$/, '')),
      );

      const { segments, delta, final } = agentCaptions(client, sessionId, captionsFrom);
      // One segment; one chunk per word, in order, with its punctuation, the first sentence
      // too; the final stream holds the reply.
      expect(segments.length).toBe(1);
      expect(delta.map((c) => c.text)).toEqual(
        reply.split(' ').map((word, i) => (i === 0 ? word : ` ${word}`)),
      );
      expect(final.map((c) => c.text).join('')).toBe(reply);

      const lags = words.map((word, i) => Math.round((delta[i]?.atMs ?? 0) - word.audioAtMs));
      if (process.env.CAPTION_LAGS) {
        writeFileSync(process.env.CAPTION_LAGS, JSON.stringify({ lags, moved }));
      }
      for (const [i, lag] of lags.entries()) {
        expect(
          lag,
          `word ${i} (${words[i]?.text}): ${JSON.stringify(lags)}`,
        ).toBeGreaterThanOrEqual(EARLIEST_MS);
        expect(lag, `word ${i} (${words[i]?.text}): ${JSON.stringify(lags)}`).toBeLessThanOrEqual(
          LATEST_MS,
        );
      }
    } finally {
      await client.leave();
    }
  }, 180_000);

  it('ends an interrupted reply’s caption at exactly the heard words, none after the cut, and captions a text-only answer', async () => {
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
            const { final } = agentCaptions(client, sessionId, from);
            return final.length > 0 && final;
          },
          10_000,
          'the final caption',
        );
      const final = await finalOf(captionsFrom);
      expect(final.map((c) => c.text).join('')).toBe(turn.text);
      const { segments, delta } = agentCaptions(client, sessionId, captionsFrom);
      expect(segments.length).toBe(1);
      // No word after the cut was shown: what the deltas showed is the heard text or the
      // start of it, word for word.
      const shown = delta.map((c) => c.text).join('');
      expect(shown.split(' ').length).toBeGreaterThan(1);
      expect(turn.text.split(' ').slice(0, shown.split(' ').length).join(' ')).toBe(shown);

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

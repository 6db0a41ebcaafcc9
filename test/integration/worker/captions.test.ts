// The Agent's live captions (`lk.transcription`, the client library's `transcriptProgress`)
// against the audio the end user received: a real livekit-server, the api, the agent worker,
// the OpenAI chat fake as the model and @livekit/rtc-node as the user. The native voice
// times its words; each sentence synthesized on its own by `POST /v1/tts/with-timestamps`
// (espeak-ng is deterministic) places the received samples, and so when each word's start
// came out of the user's audio stack, against which the arrival of its caption is measured.

import { writeFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import { joinAgentSession } from '../../helpers/realtime-rig.ts';
import { ROOM_RATE_HZ, type RoomClient } from '../../helpers/room-client.ts';

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
 * source (worker/agent-session/captions.ts), exact to the 10 ms the source sends at a time.
 * What it cannot see is the receiver: the audio waits for its 20 ms Opus packet and then in
 * the receiver's jitter buffer, 30 to 60 ms on a quiet machine, up to about 300 ms when
 * packets arrive unevenly on a loaded one. Measured on this shared 2-core machine
 * (docs/decisions/agents.md, "Agent captions paced by playback"): never more than 283 ms
 * late; at load average 11 to 30, within 150 ms early in 5 of 9 runs and up to 291 ms early
 * in 3 others, at the start of a reply while the receiver's jitter buffer drained (once 1 s,
 * with the audio itself compressed). LiveKit's synchronizer, which this replaces, ran up to
 * 900 ms ahead and sent a reply's first sentence whole.
 */
const EARLIEST_MS = -300;
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
/**
 * Where each word of a sentence starts in the received audio, in samples: the sentence's
 * loudness envelope aligned on the received one by dynamic time warping, from `start` (its
 * first loud sample) on. The received audio can hold gaps and stretches that the reference
 * has not (a frame the worker sent late, the receiver's jitter buffer concealing a late
 * packet or speeding up), which move the words after them; the warping follows them.
 */
/**
 * What the warping pays to hold one side still for a block: without it, it squeezes a
 * stretch of speech onto one received block. A gap of 100 ms costs as much as 40 blocks
 * mismatched by one unit of log loudness.
 */
const STEP_PENALTY = 1;
const placeWords = (
  received: Float64Array,
  reference: Float64Array,
  timings: Timing[],
  start: number,
): { starts: number[]; ends: number } => {
  const from = Math.max(0, Math.round((start - msToSamples(100)) / BLOCK));
  const segment = received.subarray(from, from + reference.length + Math.round(3000 / 2.5));
  const n = reference.length;
  const m = segment.length;
  const cost = new Float32Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const here = Math.abs((reference[i] as number) - (segment[j] as number));
      let before: number;
      // The sentence may start anywhere in the segment (free start).
      if (i === 0) before = 0;
      else if (j === 0) before = cost[(i - 1) * m] as number;
      else {
        before = Math.min(
          cost[(i - 1) * m + j - 1] as number,
          (cost[(i - 1) * m + j] as number) + STEP_PENALTY,
          (cost[i * m + j - 1] as number) + STEP_PENALTY,
        );
      }
      cost[i * m + j] = here + before;
    }
  }
  // Back from where the sentence ends best (free end); the first received block each
  // reference block met.
  let j = 0;
  for (let k = 1; k < m; k++) {
    if ((cost[(n - 1) * m + k] as number) < (cost[(n - 1) * m + j] as number)) j = k;
  }
  const end = j;
  const firstMet = new Int32Array(n);
  for (let i = n - 1; i >= 0; ) {
    firstMet[i] = j;
    if (i === 0) break;
    if (j === 0) i--;
    else {
      const diagonal = cost[(i - 1) * m + j - 1] as number;
      const up = (cost[(i - 1) * m + j] as number) + STEP_PENALTY;
      const left = (cost[i * m + j - 1] as number) + STEP_PENALTY;
      if (diagonal <= up && diagonal <= left) {
        i--;
        j--;
      } else if (up <= left) i--;
      else j--;
    }
  }
  const ends = (from + end) * BLOCK;
  const starts = timings.map((timing) => {
    const block = Math.min(n - 1, Math.round(msToSamples(timing.start_ms) / BLOCK));
    return (from + (firstMet[block] as number)) * BLOCK;
  });
  return { starts, ends };
};

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-captions-worker-test',
  stt: 'none',
  // No hand-over: on this shared machine a job's lease can lapse for a few seconds, and
  // a session handed to a new job mid-reply says nothing about its captions.
  env: { AGENT_SESSION_HANDOVER_AFTER_MS: '0' },
});

describe('Captions of the Agent (worker)', () => {
  let rig: RealtimeRig;
  let agentId: string;

  /** Starts a session and joins it; resolves once the greeting played. */
  const joinSession = async () => {
    const { sessionId, client } = await joinAgentSession(rig, agentId, 'Hi.');
    // The greeting's caption ends a little after its audio (each word goes out as its audio
    // leaves the worker): it is complete before a test counts the captions that follow.
    await client.waitUntil(
      () =>
        client.captionChunks.some(
          (c) =>
            c.from === `agent-${sessionId}` && c.attributes['lk.transcription_final'] === 'true',
        ),
      30_000,
      'the greeting’s final caption',
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

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
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
        const { starts: placed, ends } = placeWords(
          receivedEnvelope,
          envelope(pcm),
          timings,
          start,
        );
        for (const [i, timing] of timings.entries()) {
          words.push({ text: timing.text, audioAtMs: cameOut(placed[i] as number) });
        }
        // The next sentence is searched from where the warping ended this one.
        searchFrom = ends;
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

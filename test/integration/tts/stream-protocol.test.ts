import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { beforeAll, describe, dialectSuite, expect, it, vi } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import {
  audioOf,
  openStream,
  type ServerEvent,
  type StreamClient,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { budget } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!.id;
const START = { voice_id: VOICE, output_format: 'pcm_24000' };
/**
 * How long a fuzzed sequence gets for an answer before the client takes it for a valid
 * request waiting for more text (the server's own idle timeout is 20 s).
 */
const OPEN_SEQUENCE_WAIT_MS = 5_000;

// Each test synthesizes a little audio; on a busy machine that takes seconds.
vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

/** Error events carry exactly the spec's fields. */
function expectErrorEvent(event: ServerEvent | undefined, code: string, retryable = false) {
  expect(event).toEqual({
    event: 'error',
    request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    code,
    retryable,
    detail: expect.any(String),
  });
}

describe('streaming protocol', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: { TTS_RATE_LIMIT_PER_MINUTE: '0' } });
    },
    budget({ servers: 1 }),
  );

  const connect = (): Promise<StreamClient> =>
    openStream(streamUrl(server.url), { authorization: `Bearer ${ws.productionKey}` });

  /** Sends frames, then waits for the server to close; returns what it sent. */
  async function exchange(frames: unknown[]) {
    const client = await connect();
    for (const frame of frames) client.send(frame);
    const closed = await client.closed;
    return { ...closed, events: client.events };
  }

  it('streams audio, usage and finish with the spec fields, then closes normally', async () => {
    const client = await connect();
    const { code, events } = await streamRequest(
      client,
      { ...START, context_id: 'turn-7', partner_session_id: 'conv-1' },
      ['Hello from the stream.'],
    );
    expect(code).toBe(1000);
    const audio = events.filter((e) => e.event === 'audio');
    expect(audio.length).toBeGreaterThan(0);
    const requestId = audio[0]!.request_id;
    audio.forEach((event, index) => {
      expect(Object.keys(event).sort()).toEqual(
        ['audio', 'context_id', 'event', 'format', 'request_id', 'seq'].sort(),
      );
      expect(event).toMatchObject({
        request_id: requestId,
        context_id: 'turn-7',
        format: 'pcm_24000',
        seq: index + 1,
      });
    });
    const [usage, finish] = events.slice(audio.length);
    expect(events).toHaveLength(audio.length + 2);
    expect(usage).toEqual({
      event: 'usage',
      request_id: requestId,
      usage: { chars: 'Hello from the stream.'.length, audio_ms: expect.any(Number) },
      voice_id: VOICE,
    });
    expect((usage!.usage as { audio_ms: number }).audio_ms).toBeGreaterThan(500);
    expect(finish).toEqual({
      event: 'finish',
      request_id: requestId,
      reason: 'stop',
      cost: { amount: expect.any(Number), currency: 'USD', pass_through: false },
      audit_id: expect.stringMatching(/^aud_/),
      audio_persisted: false,
      voice_route: 'default',
    });
    expect((finish!.cost as { amount: number }).amount).toBeGreaterThan(0);
    const pcm = audioOf(events);
    expect(pcm.byteLength % 2).toBe(0);
    const row = await handle.db
      .selectFrom('synthesis_requests')
      .selectAll()
      .where('request_id', '=', requestId as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      transport: 'websocket',
      status: 'succeeded',
      context_id: 'turn-7',
      partner_session_id: 'conv-1',
      chars_synthesized: 22,
      voice_id: VOICE,
      audit_id: finish!.audit_id,
    });
  });

  it('leaves context_id out of audio events when the client did not send one', async () => {
    const { events } = await streamRequest(await connect(), START, ['No context here.']);
    const audio = events.filter((e) => e.event === 'audio');
    expect(audio.length).toBeGreaterThan(0);
    for (const event of audio) expect(event).not.toHaveProperty('context_id');
  });

  it.each([
    ['text before start', [{ event: 'text', text: 'hi' }]],
    ['flush before start', [{ event: 'flush' }]],
    ['stop before start', [{ event: 'stop' }]],
    [
      'two starts',
      [
        { event: 'start', request: START },
        { event: 'start', request: START },
      ],
    ],
    ['an unknown event', [{ event: 'pause' }]],
    ['a frame without event', [{ text: 'hi' }]],
    ['a JSON array', [[1, 2]]],
    ['request_id in start', [{ event: 'start', request: { ...START, request_id: 'mine' } }]],
    ['model_id in start', [{ event: 'start', request: { ...START, model_id: 'eleven_v3' } }]],
    ['an unknown start field', [{ event: 'start', request: { ...START, volume: 2 } }]],
    ['a missing voice_id', [{ event: 'start', request: { output_format: 'pcm_24000' } }]],
    ['bare pcm', [{ event: 'start', request: { ...START, output_format: 'pcm' } }]],
    [
      'pcm_16000 on a native voice',
      [{ event: 'start', request: { ...START, output_format: 'pcm_16000' } }],
    ],
    ['a zero speed', [{ event: 'start', request: { ...START, params: { speed: 0 } } }]],
    [
      'three voice tags',
      [{ event: 'start', request: { ...START, params: { voice_tags: ['a', 'b', 'c'] } } }],
    ],
    [
      'a bracketed voice tag',
      [{ event: 'start', request: { ...START, params: { voice_tags: ['[sad]'] } } }],
    ],
    [
      'a 49-character voice tag',
      [{ event: 'start', request: { ...START, params: { voice_tags: ['x'.repeat(49)] } } }],
    ],
    [
      'an empty partner_session_id',
      [{ event: 'start', request: { ...START, partner_session_id: '' } }],
    ],
    [
      'a 201-character partner_session_id',
      [{ event: 'start', request: { ...START, partner_session_id: 'p'.repeat(201) } }],
    ],
    [
      'an empty text event',
      [
        { event: 'start', request: START },
        { event: 'text', text: '' },
      ],
    ],
    [
      'a 5,001-character text event',
      [
        { event: 'start', request: START },
        { event: 'text', text: 'a'.repeat(5001) },
      ],
    ],
    [
      'fields on flush',
      [
        { event: 'start', request: START },
        { event: 'flush', now: true },
      ],
    ],
    [
      'fields on stop',
      [
        { event: 'start', request: START },
        { event: 'stop', text: 'x' },
      ],
    ],
    ['stop without any text or tags', [{ event: 'start', request: START }, { event: 'stop' }]],
    [
      'a tag-only request on a voice without voice_tags',
      [
        { event: 'start', request: { ...START, params: { voice_tags: ['whispering'] } } },
        { event: 'stop' },
      ],
    ],
    [
      'text that is only bracketed cues',
      [
        { event: 'start', request: START },
        { event: 'text', text: '[sighs] [laughs]' },
        { event: 'stop' },
      ],
    ],
  ])('answers %s with one invalid_request error event, then closes', async (_name, frames) => {
    const { code, events } = await exchange(frames);
    expect(events).toHaveLength(1);
    expectErrorEvent(events[0], 'invalid_request');
    expect(code).toBe(1000);
  });

  it('answers an unknown voice with voice_not_found', async () => {
    const { events } = await exchange([
      { event: 'start', request: { ...START, voice_id: 'voice_nope' } },
    ]);
    expectErrorEvent(events[0], 'voice_not_found');
  });

  it('refuses more than 20,000 characters of text in total', async () => {
    const text = 'word '.repeat(1000);
    const frames = [
      { event: 'start', request: START },
      ...Array.from({ length: 5 }, () => ({ event: 'text', text })),
    ];
    const { events } = await exchange(frames);
    expectErrorEvent(events.at(-1), 'invalid_request');
    expect(events.at(-1)!.detail).toMatch(/20000|20,000/);
    expect(events.filter((e) => e.event === 'audio')).toHaveLength(0);
  });

  it.each([
    ['a second stop', { event: 'stop' }],
    ['text', { event: 'text', text: 'This is never spoken.' }],
    ['flush', { event: 'flush' }],
    ['a second start', { event: 'start', request: START }],
  ])('answers %s after stop with invalid_request instead of finish', async (_name, late) => {
    const client = await connect();
    client.send({ event: 'start', request: START });
    client.send({ event: 'text', text: 'Stopping now.' });
    client.send({ event: 'stop' });
    client.send(late);
    const { code } = await client.closed;
    expect(code).toBe(1000);
    expect(client.events.filter((e) => e.event !== 'audio')).toHaveLength(1);
    expectErrorEvent(client.events.at(-1), 'invalid_request');
    expect(client.events.at(-1)!.detail).toContain('stop');
  });

  it('treats a flush with an empty buffer as a no-op', async () => {
    const { code, events } = await streamRequest(await connect(), START, [
      { flush: true },
      'After an empty flush.',
      { flush: true },
      { flush: true },
    ]);
    expect(code).toBe(1000);
    expect(events.at(-1)!.event).toBe('finish');
  });

  it('drops inline cues and voice tags on a voice without voice_tags and speaks the rest', async () => {
    const { events } = await streamRequest(
      await connect(),
      { ...START, params: { voice_tags: ['whispering'] } },
      ['[sighs] Just the words.'],
    );
    expect(events.at(-1)!.event).toBe('finish');
    expect(events.find((e) => e.event === 'usage')!.usage).toMatchObject({
      chars: 'Just the words.'.length,
    });
  });

  it('closes with 1008 on a binary frame and on invalid JSON', async () => {
    const binary = await connect();
    binary.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await binary.closed).code).toBe(1008);
    expect(binary.events).toHaveLength(0);

    const garbled = await exchange(['{"event": "start",']);
    expect(garbled.code).toBe(1008);
    expect(garbled.events).toHaveLength(0);
  });

  it('closes with 1009 on a frame over 64 KiB, and accepts one just under', async () => {
    const big = await exchange([JSON.stringify({ event: 'text', text: 'a'.repeat(64 * 1024) })]);
    expect(big.code).toBe(1009);

    // Just under the limit is parsed (and refused for its content, not its size).
    const under = await exchange([
      JSON.stringify({ event: 'text', pad: 'a'.repeat(64 * 1024 - 40) }),
    ]);
    expect(under.code).toBe(1000);
    expectErrorEvent(under.events[0], 'invalid_request');
  });

  it(
    'answers 1,000 random malformed or mis-ordered sequences and keeps serving',
    async () => {
      let seed = 42;
      const random = () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed / 0x7fffffff;
      };
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
      const frames: (() => unknown)[] = [
        () => ({ event: 'start', request: START }),
        () => ({
          event: 'start',
          request: { ...START, output_format: pick(['pcm', 'mp3', 'pcm_16000', 7]) },
        }),
        () => ({ event: 'start', request: { ...START, request_id: 'x' } }),
        () => ({ event: 'start' }),
        () => ({ event: 'text', text: pick(['', 'a'.repeat(5001), 42, null]) }),
        () => ({ event: 'text' }),
        () => ({ event: 'flush', extra: 1 }),
        () => ({ event: pick(['STOP', 'close', '', 'audio', 'finish']) }),
        () => pick(['{', 'null', '"start"', '[]', '{"event":', '\u0000']),
        () => Buffer.from([0xff, 0x00]),
        () => ({ event: 'stop' }),
        () => ({ event: 'flush' }),
      ];
      const outcomes = new Map<string, number>();
      let index = 0;
      const runOne = async () => {
        const length = 1 + Math.floor(random() * 4);
        const sequence = Array.from({ length }, () => pick(frames)());
        const client = await connect();
        for (const frame of sequence) {
          if (Buffer.isBuffer(frame)) client.socket.send(frame, { binary: true });
          else client.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
        }
        // A sequence that happens to be a valid open request waits for more text: the client
        // ends it once the server has had a generous while to answer. A server that did
        // answer (an error) is left to close the socket itself, however late.
        let leftOpen = false;
        const timer = setTimeout(() => {
          if (client.events.some((e) => e.event === 'error')) return;
          leftOpen = true;
          client.socket.close(4000, 'test done');
        }, OPEN_SEQUENCE_WAIT_MS);
        const { code } = await client.closed;
        clearTimeout(timer);
        const last = client.events.at(-1);
        let outcome: string;
        if (leftOpen) {
          // Whatever arrived while the close was under way, the client ended this one.
          outcome = 'left open by the client';
        } else if (code === 1008 || code === 1009) {
          outcome = `close ${code}`;
        } else if (last?.event === 'error') {
          expect(code).toBe(1000);
          expect(client.events.filter((e) => e.event === 'error')).toHaveLength(1);
          expect(['invalid_request', 'voice_not_found']).toContain(last.code);
          outcome = `error ${String(last.code)}`;
        } else {
          expect(last?.event).toBe('finish');
          outcome = 'finish';
        }
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      };
      const lanes = Array.from({ length: 8 }, async () => {
        while (index < 1000) {
          index++;
          await runOne();
        }
      });
      await Promise.all(lanes);
      expect([...outcomes.values()].reduce((a, b) => a + b, 0)).toBe(1000);
      expect(outcomes.get('error invalid_request')).toBeGreaterThan(100);
      expect(outcomes.get('close 1008')).toBeGreaterThan(50);

      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const { events } = await streamRequest(await connect(), START, ['Still serving.']);
      expect(events.at(-1)!.event).toBe('finish');
      expect(server.output()).not.toMatch(/uncaught|unhandled/i);
    },
    // 1,000 sequences in 8 lanes, a few dozen of them waiting OPEN_SEQUENCE_WAIT_MS each.
    budget({ extraMs: 240_000 }),
  );
});

// The server SDK's synthesis helpers against the real api: `for await` over a TTS stream
// decodes real audio in seq order (PCM lengths, Ogg pages), one-shot returns the bytes with
// the audit headers, and failures, aborts and seq gaps arrive as typed errors.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import {
  type AudioChunk,
  AwpAbortError,
  AwpClient,
  AwpStreamSequenceError,
  InvalidRequestError,
  RateLimitedError,
  type TtsStream,
  UnauthorizedError,
  VoiceNotFoundError,
} from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describe, dialectSuite, expect, it, vi } from '../../fixtures/index.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { decodeDelivered } from '../../helpers/tts.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

/** Synthesis on a busy machine: a few seconds of speech may take this long. */
vi.setConfig({ testTimeout: budget({ extraMs: 90_000 }) });

const SENTENCE = 'The quick brown fox jumps over the lazy dog.';
const PAGE = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} keeps the engine busy.`).join(
  ' ',
);

async function collect(stream: TtsStream): Promise<AudioChunk[]> {
  const chunks: AudioChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Ogg pages of a byte stream: each page's sequence number, flags and packet bytes. */
function oggPages(bytes: Buffer): { seq: number; flags: number; body: Buffer }[] {
  const pages = [];
  let offset = 0;
  while (offset < bytes.byteLength) {
    expect(bytes.subarray(offset, offset + 4).toString('latin1')).toBe('OggS');
    const segments = bytes[offset + 26] as number;
    const table = bytes.subarray(offset + 27, offset + 27 + segments);
    const bodyLength = table.reduce((sum, n) => sum + n, 0);
    const start = offset + 27 + segments;
    pages.push({
      seq: bytes.readUInt32LE(offset + 18),
      flags: bytes[offset + 5] as number,
      body: bytes.subarray(start, start + bodyLength),
    });
    offset = start + bodyLength;
  }
  expect(offset).toBe(bytes.byteLength);
  return pages;
}

describe('server SDK synthesis helpers', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let client: AwpClient;

  const ledgerRow = (requestId: string) =>
    handle.db
      .selectFrom('synthesis_requests')
      .selectAll()
      .where('request_id', '=', requestId)
      .executeTakeFirst();

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      ws = await seedWorkspace(handle);
      server = await apis.start(database);
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
    },
    budget({ servers: 1 }),
  );

  it('gives each chunk the timings of its words when alignment is asked for', async () => {
    const stream = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      alignment: 'word',
      text: SENTENCE,
    });
    const chunks = await collect(stream);
    expect(chunks.every((chunk) => Array.isArray(chunk.timings))).toBe(true);
    const timings = chunks.flatMap((chunk) => chunk.timings ?? []);
    expect(timings.map((t) => t.text)).toEqual(SENTENCE.replace('.', '').split(' '));
    expect(timings[0]!.start_ms).toBeGreaterThanOrEqual(0);
    for (const [i, t] of timings.entries()) {
      expect(t.end_ms).toBeGreaterThan(t.start_ms);
      if (i > 0) expect(t.start_ms).toBeGreaterThanOrEqual(timings[i - 1]!.end_ms);
    }
  });

  it('streams PCM chunks in seq order with usage and finish', async () => {
    const stream = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      context_id: 'turn-1',
      text: SENTENCE,
    });
    const chunks = await collect(stream);
    const result = await stream.result;
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i + 1));
    expect(new Set(chunks.map((c) => `${c.requestId} ${c.format} ${c.contextId}`))).toEqual(
      new Set([`${result.requestId} pcm_24000 turn-1`]),
    );
    const pcm = Buffer.concat(chunks.map((c) => c.audio));
    expect(pcm.byteLength % 2).toBe(0);
    const decoded = await decodeDelivered('pcm_24000', pcm);
    // A spoken sentence of nine words: well over a second, and not silence.
    expect(decoded.durationMs).toBeGreaterThan(1_000);
    expect(decoded.rms).toBeGreaterThan(0.01);
    expect(result).toMatchObject({
      reason: 'stop',
      usage: { chars: SENTENCE.length },
      voiceId: NATIVE_VOICE,
      audioPersisted: false,
      chunks: chunks.length,
      cost: { currency: 'USD' },
      voiceRoute: 'default',
    });
    expect(stream.requestId).toBe(result.requestId);
    const row = await ledgerRow(result.requestId);
    expect(row).toMatchObject({ status: 'succeeded', audit_id: result.auditId });
  });

  it('streams an async iterable of sentences as Ogg Opus pages that decode', async () => {
    async function* sentences() {
      yield 'Hello there.';
      yield '';
      yield 'Here is your summary for today.';
    }
    const stream = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'opus_48000_64',
      text: sentences(),
    });
    const chunks = await collect(stream);
    const ogg = Buffer.concat(chunks.map((c) => c.audio));
    const pages = oggPages(ogg);
    expect(pages.map((p) => p.seq)).toEqual(pages.map((_, i) => i));
    expect(pages[0]?.body.subarray(0, 8).toString('latin1')).toBe('OpusHead');
    expect(pages[1]?.body.subarray(0, 8).toString('latin1')).toBe('OpusTags');
    expect((pages.at(-1)?.flags ?? 0) & 0x04).toBe(0x04); // end of stream
    const decoded = await decodeDelivered('opus_48000_64', ogg);
    expect({ rate: decoded.sampleRateHz, channels: decoded.channels }).toEqual({
      rate: 48_000,
      channels: 1,
    });
    expect(decoded.durationMs).toBeGreaterThan(1_000);
    expect((await stream.result).usage.chars).toBe(
      'Hello there.'.length + 'Here is your summary for today.'.length,
    );
  });

  it('lets the caller drive text, flush and stop, with a minted stream token', async () => {
    const { token } = await client.tokens.createTtsStreamToken();
    const stream = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      streamToken: token,
    });
    await stream.sendText('First part.');
    await stream.flush();
    await stream.sendText(' Second part.');
    await stream.end();
    const chunks = await collect(stream);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i + 1));
    expect((await stream.result).usage.chars).toBe('First part. Second part.'.length);
  });

  it('rejects text sent after finish, and closes the stream when its text source throws', async () => {
    const stream = client.tts.stream({ voice_id: NATIVE_VOICE, output_format: 'pcm_24000' });
    await stream.sendText('Short.');
    await stream.end();
    await collect(stream);
    const late = await stream.sendText('Too late.').catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'stream_finished', requestId: stream.requestId });

    async function* broken() {
      yield 'A first sentence.';
      throw new Error('the model went away');
    }
    const failing = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: broken(),
    });
    const error = await collect(failing).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'input_failed', retryable: false });
    expect((error as Error).cause).toEqual(new Error('the model went away'));
  });

  it('returns one-shot bytes with request id, audit id, format, duration and charge', async () => {
    const speech = await client.tts.synthesize({
      text: SENTENCE,
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
    });
    expect(speech.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(speech.auditId).toMatch(/^aud_[0-9a-f-]{36}$/);
    expect({ format: speech.format, contentType: speech.contentType }).toEqual({
      format: 'pcm_24000',
      contentType: expect.stringMatching(/^audio\//),
    });
    expect(speech.durationMs).toBe(Math.round((speech.audio.byteLength / 2 / 24_000) * 1000));
    const row = await ledgerRow(speech.requestId);
    expect(row).toMatchObject({ status: 'succeeded', audit_id: speech.auditId });
    expect(speech.chargeCredits).toBe(Number(row?.cost_millicredits) / 1000);
    expect(speech.chargeCredits).toBeGreaterThan(0);
    expect(speech.voiceRoute).toBe('default');
  });

  it('returns one-shot audio with the timings of its words, as the route answers them', async () => {
    const speech = await client.tts.synthesizeWithTimestamps({
      text: SENTENCE,
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
    });
    expect(speech.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(speech.auditId).toMatch(/^aud_[0-9a-f-]{36}$/);
    expect({
      format: speech.format,
      alignment: speech.alignment,
      route: speech.voiceRoute,
    }).toEqual({
      format: 'pcm_24000',
      alignment: 'word',
      route: 'default',
    });
    expect(speech.durationMs).toBe(Math.round((speech.audio.byteLength / 2 / 24_000) * 1000));
    const decoded = await decodeDelivered('pcm_24000', Buffer.from(speech.audio));
    expect(decoded.rms).toBeGreaterThan(0.01);
    expect(speech.timings.map((t) => t.text)).toEqual(SENTENCE.replace('.', '').split(' '));
    for (const [i, t] of speech.timings.entries()) {
      expect(t.end_ms).toBeGreaterThan(t.start_ms);
      if (i > 0) expect(t.start_ms).toBeGreaterThanOrEqual(speech.timings[i - 1]!.end_ms);
    }
    expect(speech.timings.at(-1)!.end_ms).toBeLessThanOrEqual(speech.durationMs);
    const row = await ledgerRow(speech.requestId);
    expect(row).toMatchObject({ status: 'succeeded', audit_id: speech.auditId });
    expect(speech.chargeCredits).toBe(Number(row?.cost_millicredits) / 1000);

    const refused = await client.tts
      .synthesizeWithTimestamps({
        text: SENTENCE,
        voice_id: NATIVE_VOICE,
        output_format: 'pcm_24000',
        alignment: 'char',
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect(refused).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('refuses a bad key at the handshake with UnauthorizedError', async () => {
    const bad = new AwpClient({ apiKey: 'awp_not_a_real_key', baseUrl: server.url });
    const error = await collect(
      bad.tts.stream({ voice_id: NATIVE_VOICE, output_format: 'pcm_24000', text: 'Hi' }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', retryable: false });
  });

  it('turns an error event into its typed error', async () => {
    const stream = client.tts.stream({
      voice_id: 'voice_nope',
      output_format: 'pcm_24000',
      text: 'Hi',
    });
    const error = await collect(stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VoiceNotFoundError);
    expect(error).toMatchObject({ code: 'voice_not_found', retryable: false });
    expect((error as VoiceNotFoundError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(stream.result).rejects.toBe(error);
  });

  it('cancels on abort and on leaving the loop early', async () => {
    const controller = new AbortController();
    const aborted = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: PAGE,
      signal: controller.signal,
    });
    const error = await (async () => {
      for await (const _chunk of aborted) controller.abort();
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwpAbortError);
    const abortedId = aborted.requestId as string;
    await waitFor(async () => (await ledgerRow(abortedId))?.status === 'cancelled', {
      what: 'the aborted request to be cancelled',
      timeoutMs: 60_000,
    });

    const left = client.tts.stream({
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: PAGE,
    });
    for await (const _chunk of left) break;
    await expect(left.result).rejects.toBeInstanceOf(AwpAbortError);
    const leftId = left.requestId as string;
    await waitFor(async () => (await ledgerRow(leftId))?.status === 'cancelled', {
      what: 'the abandoned request to be cancelled',
      timeoutMs: 60_000,
    });
  });

  it('throws AwpStreamSequenceError on a gap or repeat in seq', async () => {
    const fake = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(fake, 'listening');
    let order: number[] = [];
    fake.on('connection', (socket) => {
      socket.on('message', (data) => {
        if ((JSON.parse(data.toString()) as { event: string }).event !== 'stop') return;
        for (const seq of order) {
          socket.send(
            JSON.stringify({
              event: 'audio',
              request_id: 'req-gap',
              seq,
              audio: 'AAAA',
              format: 'pcm_24000',
            }),
          );
        }
      });
    });
    const sdk = new AwpClient({
      apiKey: 'awp_x',
      baseUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    });
    try {
      for (const [sequence, expected, received, delivered] of [
        [[1, 2, 4], 3, 4, 2],
        [[1, 1], 2, 1, 1],
        [[2], 1, 2, 0],
      ] as const) {
        order = [...sequence];
        const seen: number[] = [];
        const error = await (async () => {
          const stream = sdk.tts.stream({ voice_id: 'v', output_format: 'pcm_24000', text: 'Hi' });
          for await (const chunk of stream) seen.push(chunk.seq);
        })().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AwpStreamSequenceError);
        expect(error).toMatchObject({
          code: 'stream_sequence_error',
          expectedSeq: expected,
          receivedSeq: received,
          requestId: 'req-gap',
        });
        expect(seen).toHaveLength(delivered);
      }
    } finally {
      fake.close();
    }
  });
});

describe('server SDK against a rate-limited api', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let client: AwpClient;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      const ws = await seedWorkspace(handle);
      // Six a minute with bursts of one: the second request at once is refused for ~10 s.
      server = await apis.start(database, { env: { TTS_RATE_LIMIT_PER_MINUTE: '6' } });
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
    },
    budget({ servers: 1 }),
  );

  it('throws RateLimitedError with Retry-After, and waits it out when allowed to retry', async () => {
    const speak = { text: 'Hi.', voice_id: NATIVE_VOICE, output_format: 'pcm_24000' } as const;
    await client.tts.synthesize(speak);
    const error = await client.tts.synthesize(speak, { maxAttempts: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryable: true });
    const retryAfterMs = (error as RateLimitedError).retryAfterMs ?? 0;
    expect(retryAfterMs).toBeGreaterThanOrEqual(1_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);

    // With retries the SDK waits the service's Retry-After instead of failing.
    const logged429 = () =>
      server.logs().filter((l) => l.msg === 'request' && l.status === 429).length;
    // The first refusal's log line may still be in the pipe: count from after it.
    await waitFor(() => logged429() >= 1, { what: 'the first 429 in the request log' });
    const before = logged429();
    const speech = await client.tts.synthesize(speak, { maxAttempts: 3 });
    expect(speech.audio.byteLength).toBeGreaterThan(0);
    // Exactly one refusal: the retry came after the wait the service asked for.
    await waitFor(() => logged429() - before >= 1, { what: 'the 429 in the request log' });
    expect(logged429() - before).toBe(1);
  });
});

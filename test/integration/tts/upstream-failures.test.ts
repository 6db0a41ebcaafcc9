import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import { FakeFishAudio } from '../../fakes/fishaudio.ts';
import type { FakeFailure, FakeVendorServer, RecordedRequest } from '../../fakes/vendor-server.ts';
import {
  afterAll,
  beforeAll,
  describe,
  describeEachDialect,
  dialectSuite,
  expect,
  it,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { openStream, type ServerEvent, streamUrl } from '../../helpers/stream.ts';
import { expectNoInternalNames } from '../../helpers/tts.ts';
import { addProviderAccount, importVoice, runAwp } from '../../helpers/upstream.ts';
import { budget, sleep, waitFor, within } from '../../helpers/wait.ts';

/** Provider-side references of the imported voices; none may ever reach a client. */
const EL_VOICE = 'EXAVITQu4vr4xnSDxMaL';
const FISH_VOICE = '802e3bc2b27e49c2995d23ef70e6ac89';
const EL_MODEL = 'eleven_v3';
const FISH_MODEL = 's2-pro';
/** About five seconds of speech: long enough for several upstream chunks. */
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the warm sun.';
/** Lets the first upstream chunk (about a tenth of SENTENCE's audio) through, then fails. */
const PARTIAL_BYTES = 30_000;
const FORMAT = 'pcm_24000';
/**
 * Upstream timeouts of the main server: short, so that the timeout tests are quick, yet
 * several seconds, so that a busy machine (the fakes synthesize with espeak-ng before they
 * answer; a stalled process runs its timers before it reads its sockets) cannot trip them.
 */
const FIRST_BYTE_TIMEOUT_MS = 5_000;
const IDLE_TIMEOUT_MS = 3_000;
/**
 * Upstream timeouts of the server with the concurrency bound: far beyond anything the tests
 * wait for, so only the service reacting to its client can end a stalled vendor request
 * before them.
 */
const LIMITED_TIMEOUT_MS = 120_000;
// Each test: a few requests, each bounded by the timeouts above, on a busy machine.
vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

/** The public error each failure must become. */
const AUTH_MISSING = { code: 'provider_auth_missing', status: 503, retryable: false } as const;
const REFUSED = { code: 'provider_error', status: 502, retryable: false } as const;
const OVERLOADED = { code: 'provider_unavailable', status: 503, retryable: true } as const;
const FAILED = { code: 'provider_error', status: 502, retryable: true } as const;
type Expected = typeof AUTH_MISSING | typeof REFUSED | typeof OVERLOADED | typeof FAILED;

type Vendor = 'elevenlabs' | 'fishaudio';

interface OneShot {
  status: number;
  headers: Headers;
  /** `X-Request-Id`. */
  requestId: string;
  /** Parsed JSON body of an error answer. */
  json: Record<string, unknown> | undefined;
  bytes: Buffer;
}

interface Streamed {
  code: number;
  reason: string;
  events: ServerEvent[];
}

/** A distinct key per fake, so a leaked key can be traced to its vendor. */
function fakeKey(vendor: string): string {
  return `${vendor}-key-${randomBytes(8).toString('hex')}`;
}

/** The upstream request id of a recorded request, as the service sees it. */
function upstreamRequestId(vendor: Vendor, request: RecordedRequest): string | undefined {
  if (vendor === 'elevenlabs') return request.responseHeaders['request-id'];
  // Fish answers without a request id; the service logs the trace id it sent instead.
  return request.headers.traceparent?.split('-')[1];
}

/** What a client does, recording everything it saw into `seen`. */
function clientOf(seen: string[]) {
  const tts = async (
    base: string,
    key: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<OneShot> => {
    const response = await fetch(`${base}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    seen.push(JSON.stringify([...response.headers]));
    let json: Record<string, unknown> | undefined;
    if (!response.headers.get('content-type')?.startsWith('audio/')) {
      seen.push(bytes.toString('utf8'));
      json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    }
    return {
      status: response.status,
      headers: response.headers,
      requestId: response.headers.get('x-request-id') ?? '',
      json,
      bytes,
    };
  };

  const record = (events: ServerEvent[], reason = '') =>
    seen.push(JSON.stringify(events.map((event) => ({ ...event, audio: undefined }))), reason);

  const stream = async (
    base: string,
    key: string,
    request: Record<string, unknown>,
    texts: string[],
  ): Promise<Streamed> => {
    const client = await openStream(streamUrl(base), { authorization: `Bearer ${key}` });
    client.send({ event: 'start', request });
    for (const text of texts) client.send({ event: 'text', text });
    client.send({ event: 'stop' });
    // Every stream here ends within the upstream timeouts; a server that never closes is a
    // defect, reported as code -1 rather than as the test's timeout.
    const closed = await within(client.closed, 4 * FIRST_BYTE_TIMEOUT_MS, {
      code: -1,
      reason: 'client gave up waiting for close',
    });
    if (closed.code === -1) client.socket.terminate();
    record(client.events, closed.reason);
    return { ...closed, events: client.events };
  };

  return { tts, stream, record };
}

/** An HTTP error answer: the contract's status, JSON body and request id. */
function expectHttpError(result: OneShot, expected: Expected, context = ''): void {
  const body = result.bytes.toString('utf8').slice(0, 300);
  expect(result.status, `${context} ${body}`).toBe(expected.status);
  expect(result.headers.get('content-type')).toMatch(/^application\/json/);
  expect(result.requestId).not.toBe('');
  expect(result.json).toEqual({
    event: 'error',
    request_id: result.requestId,
    code: expected.code,
    retryable: expected.retryable,
    detail: expect.any(String),
  });
}

/**
 * A stream that failed: audio events only (at least one when `audio` is true, none when
 * false), then exactly one error event as the last event, then a normal close.
 */
function expectStreamError(result: Streamed, expected: Expected, audio: boolean): void {
  const names = result.events.map((event) => event.event);
  expect(result.code, JSON.stringify(names)).toBe(1000);
  const error = result.events.at(-1);
  expect(error).toMatchObject({
    event: 'error',
    code: expected.code,
    retryable: expected.retryable,
  });
  expect(error?.request_id).toEqual(expect.any(String));
  // `detail` is optional on a stream error; nothing else may be there.
  for (const field of Object.keys(error ?? {})) {
    expect(['event', 'request_id', 'code', 'retryable', 'detail']).toContain(field);
  }
  expect(
    names.slice(0, -1).every((name) => name === 'audio'),
    JSON.stringify(names),
  ).toBe(true);
  if (audio) expect(names.filter((name) => name === 'audio').length).toBeGreaterThan(0);
  else expect(names).toEqual(['error']);
  for (const event of result.events.slice(0, -1)) expect(event.request_id).toBe(error?.request_id);
}

/** The failure log line of one request, waited for (stdout may trail the answer). */
async function failureLog(
  server: RunningServer,
  requestId: string,
  message: 'one-shot synthesis failed' | 'streaming synthesis failed',
): Promise<Record<string, unknown>> {
  return waitFor(
    () => server.logs().find((line) => line.request_id === requestId && line.msg === message),
    { what: `"${message}" logged for ${requestId}` },
  );
}

/** Files under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/**
 * Every file under `dir` with its content, once a read saw the same files before and after
 * it: the persistence spool's files are moved into the audio store while the api runs, so
 * a read that raced a move (a file gone, or one that appeared) is not an answer.
 */
function contentsUnder(dir: string): Promise<Map<string, Buffer>> {
  return waitFor(
    () => {
      const before = filesUnder(dir);
      const contents = new Map(before.map((file) => [file, readFileSync(file)]));
      const after = filesUnder(dir);
      return after.length === before.length && after.every((file) => contents.has(file))
        ? contents
        : undefined;
    },
    { what: `a read of every file under ${dir} that no move raced` },
  );
}

/** Nothing a client saw names a provider, model, provider voice, key or upstream request. */
function expectNothingLeaked(seen: string[], secrets: string[]): void {
  const everything = seen.join('\n');
  expect(everything.length).toBeGreaterThan(1000);
  expect(expectNoInternalNames(everything)).toEqual([]);
  for (const secret of secrets) expect(everything.includes(secret), secret).toBe(false);
  expect(everything).not.toMatch(/fish|eleven|s2-pro|multilingual|traceparent/i);
}

interface Route {
  vendor: Vendor;
  voiceId: string;
  /** The fake of the main server. */
  fake: () => FakeVendorServer;
  /** The fake of the server with a bound of two concurrent requests. */
  limitedFake: () => FakeVendorServer;
}

// The failure matrix exercises the adapters and both synthesis paths, none of which has
// database-specific code, so it runs on SQLite only to keep the file fast; provider
// accounts and the ledger run on both dialects in the next block.
describe('upstream provider failures', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  let limitedElevenlabs: FakeElevenLabs;
  let limitedFish: FakeFishAudio;
  /** Short upstream timeouts, both deployment keys. */
  let server: RunningServer;
  /** No provider key at all. */
  let keyless: RunningServer;
  /** At most two concurrent upstream requests per account, default timeouts. */
  let limited: RunningServer;
  const seen: string[] = [];
  const { tts, stream } = clientOf(seen);
  const routes: Record<Vendor, Route> = {
    elevenlabs: {
      vendor: 'elevenlabs',
      voiceId: '',
      fake: () => elevenlabs,
      limitedFake: () => limitedElevenlabs,
    },
    fishaudio: {
      vendor: 'fishaudio',
      voiceId: '',
      fake: () => fish,
      limitedFake: () => limitedFish,
    },
  };

  const oneShotOn = (target: RunningServer, route: Route, text = SENTENCE) =>
    tts(target.url, ws.productionKey, { text, voice_id: route.voiceId, output_format: FORMAT });
  const streamOn = (target: RunningServer, route: Route, texts = [SENTENCE]) =>
    stream(target.url, ws.productionKey, { voice_id: route.voiceId, output_format: FORMAT }, texts);

  /** Requests `fake` received during `action`. */
  const during = async <T>(fake: FakeVendorServer, action: () => Promise<T>) => {
    const before = fake.requests.length;
    const result = await action();
    return { result, requests: fake.requests.slice(before) };
  };

  /**
   * Injects `failure` into the next vendor request of `route` for a one-shot and then a
   * stream request; checks the public error of both, that the failure log of each carries
   * the vendor's request id, and returns the exchanges.
   */
  const failBoth = async (
    route: Route,
    failure: FakeFailure,
    expected: Expected,
    streamAudio: boolean,
  ) => {
    const fake = route.fake();
    fake.failNext(failure);
    const oneShot = await during(fake, () => oneShotOn(server, route));
    expectHttpError(oneShot.result, expected, JSON.stringify(failure));
    expect(oneShot.requests).toHaveLength(1);
    expect(oneShot.requests[0]?.failure).toEqual(failure);

    fake.failNext(failure);
    const streamed = await during(fake, () => streamOn(server, route));
    expectStreamError(streamed.result, expected, streamAudio);
    expect(streamed.requests).toHaveLength(1);
    expect(streamed.requests[0]?.failure).toEqual(failure);

    const streamRequestId = streamed.result.events.at(-1)?.request_id as string;
    const logs = [
      await failureLog(server, oneShot.result.requestId, 'one-shot synthesis failed'),
      await failureLog(server, streamRequestId, 'streaming synthesis failed'),
    ];
    const recorded = [oneShot.requests[0]!, streamed.requests[0]!];
    for (const [i, line] of logs.entries()) {
      const id = upstreamRequestId(route.vendor, recorded[i]!);
      const err = line.err as Record<string, unknown>;
      expect(line.level).toBe(40);
      expect(err.provider).toBe(route.vendor);
      // A vendor that answered (or, for Fish, any request: the trace id we sent) has an
      // id an operator can quote to the vendor.
      if (id !== undefined) expect(err.upstreamRequestId, JSON.stringify(line)).toBe(id);
    }
    return { oneShot, streamed };
  };

  beforeAll(
    async ({ databases, apis }) => {
      [elevenlabs, fish, limitedElevenlabs, limitedFish] = await Promise.all([
        FakeElevenLabs.start({ chunkDelayMs: 1, apiKey: fakeKey('el') }),
        FakeFishAudio.start({ chunkDelayMs: 1, apiKey: fakeKey('fa') }),
        // Audio spread over about five seconds, so a request is still streaming when a client
        // leaves (even when the service is slow to see the first audio) and concurrent
        // requests overlap.
        FakeElevenLabs.start({ chunkDelayMs: 80, chunks: 60, apiKey: fakeKey('el') }),
        FakeFishAudio.start({ chunkDelayMs: 80, chunks: 60, apiKey: fakeKey('fa') }),
      ]);
      ({ database, handle } = await databases.get('sqlite'));
      ws = await seedWorkspace(handle);
      const common = { TTS_RATE_LIMIT_PER_MINUTE: '0' };
      server = await apis.start(database, {
        env: {
          ...common,
          ELEVENLABS_API_BASE: elevenlabs.url,
          ELEVENLABS_API_KEY: elevenlabs.apiKey,
          FISHAUDIO_API_BASE: fish.url,
          FISHAUDIO_API_KEY: fish.apiKey,
          UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
          UPSTREAM_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
        },
      });
      [keyless, limited] = await Promise.all([
        startServer({
          database,
          env: {
            ...common,
            ELEVENLABS_API_BASE: elevenlabs.url,
            FISHAUDIO_API_BASE: fish.url,
            REDIS_PREFIX: server.env.REDIS_PREFIX!,
          },
        }),
        startServer({
          database,
          env: {
            ...common,
            ELEVENLABS_API_BASE: limitedElevenlabs.url,
            ELEVENLABS_API_KEY: limitedElevenlabs.apiKey,
            FISHAUDIO_API_BASE: limitedFish.url,
            FISHAUDIO_API_KEY: limitedFish.apiKey,
            UPSTREAM_MAX_CONCURRENT_PER_ACCOUNT: '2',
            UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(LIMITED_TIMEOUT_MS),
            UPSTREAM_IDLE_TIMEOUT_MS: String(LIMITED_TIMEOUT_MS),
            REDIS_PREFIX: server.env.REDIS_PREFIX!,
          },
        }),
      ]);
      const base = { workspaceId: ws.workspaceId };
      routes.elevenlabs.voiceId = importVoice(server.env, {
        ...base,
        provider: 'elevenlabs',
        providerVoiceId: EL_VOICE,
        model: EL_MODEL,
        name: 'Sarah expressive',
      });
      routes.fishaudio.voiceId = importVoice(server.env, {
        ...base,
        provider: 'fishaudio',
        providerVoiceId: FISH_VOICE,
        model: FISH_MODEL,
        name: 'Narrator',
      });
    },
    budget({ servers: 3, awpRuns: 2 }),
  );

  afterAll(async () => {
    await Promise.all([server?.stop(), keyless?.stop(), limited?.stop()]);
    await Promise.all([
      elevenlabs?.close(),
      fish?.close(),
      limitedElevenlabs?.close(),
      limitedFish?.close(),
    ]);
  });

  it('synthesizes through both vendors when nothing fails', async () => {
    for (const route of Object.values(routes)) {
      const oneShot = await oneShotOn(server, route);
      expect(oneShot.status, oneShot.bytes.toString().slice(0, 200)).toBe(200);
      expect(oneShot.bytes.byteLength).toBeGreaterThan(48_000);
      const streamed = await streamOn(server, route);
      expect(streamed.code).toBe(1000);
      expect(streamed.events.at(-1)?.event).toBe('finish');
    }
  });

  it('refuses with provider_auth_missing when no key is configured, without calling the vendor', async () => {
    for (const route of Object.values(routes)) {
      const { result, requests } = await during(route.fake(), async () => ({
        oneShot: await oneShotOn(keyless, route),
        streamed: await streamOn(keyless, route),
      }));
      expectHttpError(result.oneShot, AUTH_MISSING, route.vendor);
      expectStreamError(result.streamed, AUTH_MISSING, false);
      expect(requests).toHaveLength(0);
      const row = await handle.db
        .selectFrom('synthesis_requests')
        .select(['status', 'error_code'])
        .where('request_id', '=', result.oneShot.requestId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'failed', error_code: 'provider_auth_missing' });
    }
  });

  describe.each(['elevenlabs', 'fishaudio'] as const)('%s', (vendor) => {
    const route = () => routes[vendor];

    it('turns a refused key (401, 403) into a non-retryable provider_error and an operator warning', async () => {
      for (const status of [401, 403]) {
        const { oneShot, streamed } = await failBoth(
          route(),
          { kind: 'status', status },
          REFUSED,
          false,
        );
        for (const recorded of [...oneShot.requests, ...streamed.requests]) {
          // The fake was sent the right key and refused it anyway (a revoked key).
          expect(recorded.auth).toEqual({ present: true, valid: true });
          const id = upstreamRequestId(vendor, recorded);
          const warning = await waitFor(
            () =>
              server
                .logs()
                .find(
                  (line) =>
                    line.level === 40 &&
                    typeof line.msg === 'string' &&
                    line.msg.includes('refused the account') &&
                    line.upstreamRequestId === id,
                ),
            { what: `refused-account warning for ${id}` },
          );
          expect(warning).toMatchObject({ provider: vendor, status });
          expect(warning.msg).toMatch(/check the API key/);
        }
      }
      expect(server.output()).not.toContain(route().fake().apiKey);
    });

    it('turns 429 and 503 into a retryable provider_unavailable, 500 into a retryable provider_error', async () => {
      await failBoth(route(), { kind: 'status', status: 429 }, OVERLOADED, false);
      await failBoth(route(), { kind: 'status', status: 503 }, OVERLOADED, false);
      await failBoth(route(), { kind: 'status', status: 500 }, FAILED, false);
    });

    it('fails a vendor that never answers as a retryable provider_error after the first-byte timeout', async () => {
      const fake = route().fake();
      fake.failNext({ kind: 'hang' }, 2);
      const started = Date.now();
      const { result, requests } = await during(fake, () =>
        Promise.all([oneShotOn(server, route()), streamOn(server, route())]),
      );
      const elapsed = Date.now() - started;
      const [oneShot, streamed] = result;
      expectHttpError(oneShot, FAILED);
      expectStreamError(streamed, FAILED, false);
      // Not before the first-byte timeout (100 ms for clocks of two processes)...
      expect(elapsed).toBeGreaterThanOrEqual(FIRST_BYTE_TIMEOUT_MS - 100);
      // ...and not much after it: without the timeout they would hang until the client
      // gives up. The margin is event-loop lag and two requests, never three timeouts.
      expect(elapsed).toBeLessThan(3 * FIRST_BYTE_TIMEOUT_MS);
      expect(requests.map((request) => request.failure?.kind)).toEqual(['hang', 'hang']);
      // The service gave up on the hanging exchanges.
      await Promise.all(
        requests.map(async (request) => expect(await request.ended).toBe('client_closed')),
      );
    });

    it('fails a vendor that goes silent mid-audio: the stream sends audio, then a retryable error', async () => {
      const failure = { kind: 'stall_after_bytes', bytes: PARTIAL_BYTES } as const;
      const { oneShot, streamed } = await failBoth(route(), failure, FAILED, true);
      expect(oneShot.result.bytes.byteLength).toBeLessThan(1000);
      for (const recorded of [...oneShot.requests, ...streamed.requests]) {
        expect(recorded.audioBytesSent).toBe(PARTIAL_BYTES);
        expect(await recorded.ended).toBe('client_closed');
      }
    });

    it('fails a connection reset before any audio as a retryable provider_error', async () => {
      await failBoth(route(), { kind: 'reset_after_bytes', bytes: 0 }, FAILED, false);
    });

    it('never truncates silently: a reset or early close after partial audio is audio, then a retryable error', async () => {
      for (const failure of [
        { kind: 'reset_after_bytes', bytes: PARTIAL_BYTES },
        { kind: 'close_after_bytes', bytes: PARTIAL_BYTES },
      ] as const) {
        const { oneShot, streamed } = await failBoth(route(), failure, FAILED, true);
        // Never a 200 with the audio that did arrive.
        expect(oneShot.result.status).toBe(502);
        expect(oneShot.result.headers.get('x-audio-format')).toBeNull();
        const names = streamed.result.events.map((event) => event.event);
        expect(names).not.toContain('finish');
        expect(names).not.toContain('usage');
        for (const recorded of [...oneShot.requests, ...streamed.requests]) {
          expect(recorded.audioBytesSent).toBe(PARTIAL_BYTES);
          expect(await recorded.ended).toBe('broken');
        }
      }
    });

    it('fails an empty 200 answer as a retryable provider_error', async () => {
      await failBoth(route(), { kind: 'end_after_bytes', bytes: 0 }, FAILED, false);
    });

    it('stops the vendor request at once when the stream client leaves mid-audio', async () => {
      const fake = route().limitedFake();
      const before = fake.requests.length;
      const client = await openStream(streamUrl(limited.url), {
        authorization: `Bearer ${ws.productionKey}`,
      });
      client.send({
        event: 'start',
        request: { voice_id: route().voiceId, output_format: FORMAT },
      });
      client.send({ event: 'text', text: SENTENCE });
      client.send({ event: 'stop' });
      const first = await client.waitFor((event) => event.event === 'audio');
      const recorded = fake.requests[before];
      expect(recorded?.outcome).toBe('pending');
      client.socket.terminate();
      // The fake's own view: the service hung up while the vendor still had audio to send
      // ('completed' had the service read on to the end). `ended` settles either way.
      expect(await recorded!.ended).toBe('client_closed');
      expect(recorded!.audioBytesSent).toBeGreaterThan(0);
      seen.push(JSON.stringify({ ...first, audio: undefined }));

      const row = await waitFor(
        async () => {
          const found = await handle.db
            .selectFrom('synthesis_requests')
            .select(['status', 'error_code'])
            .where('request_id', '=', first.request_id as string)
            .executeTakeFirst();
          return found?.status === 'started' ? undefined : found;
        },
        { what: 'the stream ledger row to close' },
      );
      expect(row).toEqual({ status: 'cancelled', error_code: null });
    });

    it('stops a stalled vendor request when the stream client leaves, long before any timeout', async () => {
      const fake = route().limitedFake();
      fake.failNext({ kind: 'stall_after_bytes', bytes: PARTIAL_BYTES });
      const before = fake.requests.length;
      const client = await openStream(streamUrl(limited.url), {
        authorization: `Bearer ${ws.productionKey}`,
      });
      client.send({
        event: 'start',
        request: { voice_id: route().voiceId, output_format: FORMAT },
      });
      client.send({ event: 'text', text: SENTENCE });
      client.send({ event: 'stop' });
      await client.waitFor((event) => event.event === 'audio');
      const recorded = await waitFor(
        () =>
          fake.requests[before]?.audioBytesSent === PARTIAL_BYTES
            ? fake.requests[before]
            : undefined,
        { what: 'the partial audio to be sent' },
      );
      // The vendor stays silent for a moment: the service is waiting on it when the client
      // leaves.
      await sleep(200);
      client.socket.close();
      // Only the client leaving can end it this early: the upstream timeouts of this server
      // are four times longer.
      const outcome = await within(recorded.ended, LIMITED_TIMEOUT_MS / 4, 'still open');
      expect(outcome).toBe('client_closed');
      seen.push(JSON.stringify(client.events.map((event) => ({ ...event, audio: undefined }))));
    });

    it('stops the vendor request when a one-shot client disconnects', async () => {
      const fake = route().limitedFake();
      fake.failNext({ kind: 'stall_after_bytes', bytes: PARTIAL_BYTES });
      const before = fake.requests.length;
      const abort = new AbortController();
      const answered = tts(
        limited.url,
        ws.productionKey,
        { text: SENTENCE, voice_id: route().voiceId, output_format: FORMAT },
        abort.signal,
      ).then(
        () => 'answered',
        () => 'aborted',
      );
      const recorded = await waitFor(
        () =>
          fake.requests[before]?.audioBytesSent === PARTIAL_BYTES
            ? fake.requests[before]
            : undefined,
        { what: 'the partial audio to be sent' },
      );
      abort.abort();
      expect(await answered).toBe('aborted');
      // Only the client leaving can end it this early: the upstream timeouts of this server
      // are four times longer.
      const outcome = await within(recorded.ended, LIMITED_TIMEOUT_MS / 4, 'still open');
      expect(outcome).toBe('client_closed');
    });

    it('sends at most two concurrent requests per account and queues the rest', async () => {
      const fake = route().limitedFake();
      const before = fake.requests.length;
      fake.holdResponses();
      let results: OneShot[];
      try {
        const since = new Date().toISOString();
        const pending = Array.from({ length: 5 }, () => oneShotOn(limited, route(), 'Hello.'));
        await waitFor(() => fake.requests.length - before >= 2, {
          what: 'two requests at the vendor',
          timeoutMs: 60_000,
        });
        // All five are being synthesized (their ledger rows open before the provider is
        // called), yet the other three wait in the service's queue, not at the vendor.
        await waitFor(
          async () =>
            (
              await handle.db
                .selectFrom('synthesis_requests')
                .select('request_id')
                .where('workspace_id', '=', ws.workspaceId)
                .where('voice_id', '=', route().voiceId)
                .where('status', '=', 'started')
                .where('created_at', '>=', since)
                .execute()
            ).length === 5,
          { what: 'five requests in synthesis' },
        );
        expect(fake.requests.length - before).toBe(2);
        expect(fake.inFlight).toBe(2);
        fake.releaseResponses();
        results = await Promise.all(pending);
      } finally {
        fake.releaseResponses();
      }
      expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
      expect(fake.requests.length - before).toBe(5);
      expect(fake.maxInFlight).toBe(2);
    });
  });

  it('mixed one-shot and stream requests share the per-account bound', async () => {
    const route = routes.elevenlabs;
    const fake = route.limitedFake();
    const before = fake.requests.length;
    // Held at the vendor, so the bound is reached however slowly the requests arrive.
    fake.holdResponses();
    let results: (OneShot | Streamed)[];
    try {
      const pending = Promise.all([
        oneShotOn(limited, route, 'Hello there.'),
        oneShotOn(limited, route, 'Hello there.'),
        streamOn(limited, route, ['Hello there.']),
        streamOn(limited, route, ['Hello there.']),
      ]);
      await waitFor(() => fake.inFlight === 2, {
        what: 'two requests at the vendor',
        timeoutMs: 60_000,
      });
      fake.releaseResponses();
      results = await pending;
    } finally {
      fake.releaseResponses();
    }
    expect(fake.requests.length - before).toBe(4);
    expect((results[0] as OneShot).status).toBe(200);
    expect((results[1] as OneShot).status).toBe(200);
    expect((results[2] as Streamed).events.at(-1)?.event).toBe('finish');
    expect((results[3] as Streamed).events.at(-1)?.event).toBe('finish');
    expect(fake.maxInFlight).toBe(2);
  });

  it('never shows a provider, model, voice reference, key or upstream request id to a client', () => {
    const fakes = [elevenlabs, fish, limitedElevenlabs, limitedFish];
    const upstreamIds = [
      ...[elevenlabs, limitedElevenlabs].flatMap((fake) =>
        fake.requests.map((request) => upstreamRequestId('elevenlabs', request)),
      ),
      ...[fish, limitedFish].flatMap((fake) =>
        fake.requests.map((request) => upstreamRequestId('fishaudio', request)),
      ),
    ].filter((id): id is string => id !== undefined);
    expect(upstreamIds.length).toBeGreaterThan(40);
    expectNothingLeaked(seen, [
      EL_VOICE,
      FISH_VOICE,
      EL_MODEL,
      FISH_MODEL,
      ...fakes.map((fake) => fake.apiKey),
      ...upstreamIds,
    ]);
    for (const running of [server, keyless, limited]) {
      for (const fake of fakes) expect(running.output()).not.toContain(fake.apiKey);
    }
  });
});

describeEachDialect('workspace provider accounts and the ledger on %s', (dialect) => {
  const WRONG_EL_KEY = 'wrong-key-123456';
  const WRONG_FISH_KEY = 'wrong-fish-key-654321';
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let elevenlabs: FakeElevenLabs;
  let fish: FakeFishAudio;
  /** Has its own account at both vendors. */
  let owner: SeededWorkspace;
  /** Has no account: its voices use the deployment's (wrong) keys. */
  let plain: SeededWorkspace;
  const accounts: Partial<Record<Vendor, string>> = {};
  const voices = {
    owner: { elevenlabs: '', fishaudio: '' },
    plain: { elevenlabs: '', fishaudio: '' },
  };
  const seen: string[] = [];
  const { tts, stream } = clientOf(seen);
  const fakeOf = (vendor: Vendor): FakeVendorServer =>
    vendor === 'elevenlabs' ? elevenlabs : fish;

  const balance = async (workspaceId: string) =>
    Number(
      (
        await handle.db
          .selectFrom('workspaces')
          .select('credit_balance_millicredits')
          .where('id', '=', workspaceId)
          .executeTakeFirstOrThrow()
      ).credit_balance_millicredits,
    );

  /** The ledger row of a request once it is closed. */
  const closedRow = (requestId: string) =>
    waitFor(
      async () => {
        const row = await handle.db
          .selectFrom('synthesis_requests')
          .select(['status', 'error_code', 'cost_millicredits', 'reserved_millicredits'])
          .where('request_id', '=', requestId)
          .executeTakeFirst();
        return row === undefined || row.status === 'started' ? undefined : row;
      },
      { what: `ledger row ${requestId} to close` },
    );

  const importBoth = (workspaceId: string) => ({
    elevenlabs: importVoice(server.env, {
      workspaceId,
      provider: 'elevenlabs',
      providerVoiceId: EL_VOICE,
      model: EL_MODEL,
      name: 'Sarah expressive',
    }),
    fishaudio: importVoice(server.env, {
      workspaceId,
      provider: 'fishaudio',
      providerVoiceId: FISH_VOICE,
      model: FISH_MODEL,
      name: 'Narrator',
    }),
  });

  beforeAll(
    async ({ databases, apis }) => {
      [elevenlabs, fish] = await Promise.all([
        FakeElevenLabs.start({ chunkDelayMs: 1, apiKey: fakeKey('el') }),
        FakeFishAudio.start({ chunkDelayMs: 1, apiKey: fakeKey('fa') }),
      ]);
      ({ database, handle } = await databases.get(dialect));
      owner = await seedWorkspace(handle);
      plain = await seedWorkspace(handle);
      server = await apis.start(database, {
        env: {
          TTS_RATE_LIMIT_PER_MINUTE: '0',
          ELEVENLABS_API_BASE: elevenlabs.url,
          ELEVENLABS_API_KEY: WRONG_EL_KEY,
          FISHAUDIO_API_BASE: fish.url,
          FISHAUDIO_API_KEY: WRONG_FISH_KEY,
        },
      });
      // The account must exist before the import: an import takes the workspace's only
      // account at the vendor.
      accounts.elevenlabs = addProviderAccount(server.env, {
        workspaceId: owner.workspaceId,
        provider: 'elevenlabs',
        label: 'Own ElevenLabs account',
        apiKey: elevenlabs.apiKey,
      });
      accounts.fishaudio = addProviderAccount(server.env, {
        workspaceId: owner.workspaceId,
        provider: 'fishaudio',
        label: 'Own Fish account',
        apiKey: fish.apiKey,
      });
      voices.owner = importBoth(owner.workspaceId);
      voices.plain = importBoth(plain.workspaceId);
    },
    budget({ servers: 1, awpRuns: 6 }),
  );

  afterAll(async () => {
    await Promise.all([elevenlabs?.close(), fish?.close()]);
  });

  it('synthesizes with the workspace account key on both paths', async () => {
    for (const vendor of ['elevenlabs', 'fishaudio'] as const) {
      const fake = fakeOf(vendor);
      const before = fake.requests.length;
      const voiceId = voices.owner[vendor];
      const oneShot = await tts(server.url, owner.productionKey, {
        text: SENTENCE,
        voice_id: voiceId,
        output_format: FORMAT,
      });
      expect(oneShot.status, oneShot.bytes.toString().slice(0, 200)).toBe(200);
      const streamed = await stream(
        server.url,
        owner.productionKey,
        { voice_id: voiceId, output_format: FORMAT },
        [SENTENCE],
      );
      expect(streamed.code).toBe(1000);
      expect(streamed.events.at(-1)?.event).toBe('finish');
      const requests = fake.requests.slice(before);
      expect(requests).toHaveLength(2);
      for (const request of requests) expect(request.auth).toEqual({ present: true, valid: true });
    }
  });

  it('uses the deployment key for a workspace without an account', async () => {
    for (const vendor of ['elevenlabs', 'fishaudio'] as const) {
      const fake = fakeOf(vendor);
      const before = fake.requests.length;
      const voiceId = voices.plain[vendor];
      const oneShot = await tts(server.url, plain.productionKey, {
        text: SENTENCE,
        voice_id: voiceId,
        output_format: FORMAT,
      });
      expectHttpError(oneShot, REFUSED, vendor);
      const streamed = await stream(
        server.url,
        plain.productionKey,
        { voice_id: voiceId, output_format: FORMAT },
        [SENTENCE],
      );
      expectStreamError(streamed, REFUSED, false);
      const requests = fake.requests.slice(before);
      expect(requests).toHaveLength(2);
      for (const request of requests) {
        // The wrong deployment key was sent, and refused by the vendor itself.
        expect(request.auth).toEqual({ present: true, valid: false });
        expect(request.status).toBe(401);
        const id = upstreamRequestId(vendor, request);
        await waitFor(
          () =>
            server
              .logs()
              .find(
                (line) =>
                  line.level === 40 &&
                  line.provider === vendor &&
                  line.status === 401 &&
                  line.upstreamRequestId === id,
              ),
          { what: `refused-account warning for ${id}` },
        );
      }
    }
  });

  it('stores account keys sealed and never prints them', async () => {
    const rows = await handle.db
      .selectFrom('provider_accounts')
      .selectAll()
      .where('workspace_id', '=', owner.workspaceId)
      .execute();
    expect(rows.map((row) => row.id).sort()).toEqual(
      [accounts.elevenlabs, accounts.fishaudio].sort(),
    );
    for (const row of rows) {
      const key = fakeOf(row.provider as Vendor).apiKey;
      const ciphertext = String(row.api_key_ciphertext);
      expect(ciphertext.length).toBeGreaterThan(key.length);
      expect(ciphertext).not.toContain(key);
      expect(Buffer.from(ciphertext, 'base64').toString('latin1')).not.toContain(key);
      expect(JSON.stringify(row)).not.toContain(key);
      expect(row.api_key_last4).toBe(key.slice(-4));
    }
    if (dialect === 'sqlite') {
      // No file of the deployment (database, write-ahead log, secrets) holds a key in clear.
      const files = await contentsUnder(database.dataDir);
      // The database itself is among them.
      const databases = [...files.values()].filter(
        (bytes) => bytes.subarray(0, 16).toString('latin1') === 'SQLite format 3\0',
      );
      expect(databases.length).toBeGreaterThan(0);
      for (const [file, bytes] of files) {
        const content = bytes.toString('latin1');
        for (const fake of [elevenlabs, fish]) {
          expect(content.includes(fake.apiKey), `${file} holds a key`).toBe(false);
        }
      }
    }
    const listed = runAwp(server.env, [
      'provider-account',
      'list',
      '--workspace',
      owner.workspaceId,
      '--json',
    ]);
    expect(listed.status, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as { accounts: { id: string; keyLast4: string }[] };
    expect(list.accounts.map((account) => account.id).sort()).toEqual(
      [accounts.elevenlabs, accounts.fishaudio].sort(),
    );
    const human = runAwp(server.env, [
      'provider-account',
      'list',
      '--workspace',
      owner.workspaceId,
    ]);
    expect(human.status, human.stderr).toBe(0);
    for (const fake of [elevenlabs, fish]) {
      for (const output of [listed.stdout, listed.stderr, human.stdout, human.stderr]) {
        expect(output).not.toContain(fake.apiKey);
      }
    }
  });

  it('closes failed requests as failed with the public code and leaves the balance unchanged', async () => {
    const ownerBefore = await balance(owner.workspaceId);
    const plainBefore = await balance(plain.workspaceId);
    const failures: { requestId: string; code: string }[] = [];

    for (const vendor of ['elevenlabs', 'fishaudio'] as const) {
      const fake = fakeOf(vendor);
      const owned = { voice_id: voices.owner[vendor], output_format: FORMAT };
      for (const [failure, expected] of [
        [{ kind: 'status', status: 429 }, OVERLOADED],
        [{ kind: 'status', status: 500 }, FAILED],
        [{ kind: 'reset_after_bytes', bytes: PARTIAL_BYTES }, FAILED],
      ] as const) {
        fake.failNext(failure);
        const oneShot = await tts(server.url, owner.productionKey, { ...owned, text: SENTENCE });
        expectHttpError(oneShot, expected, `${vendor} ${JSON.stringify(failure)}`);
        failures.push({ requestId: oneShot.requestId, code: expected.code });

        fake.failNext(failure);
        const streamed = await stream(server.url, owner.productionKey, owned, [SENTENCE]);
        expectStreamError(streamed, expected, failure.kind === 'reset_after_bytes');
        failures.push({
          requestId: streamed.events.at(-1)?.request_id as string,
          code: expected.code,
        });
      }

      const refusedOneShot = await tts(server.url, plain.productionKey, {
        text: SENTENCE,
        voice_id: voices.plain[vendor],
        output_format: FORMAT,
      });
      expectHttpError(refusedOneShot, REFUSED);
      failures.push({ requestId: refusedOneShot.requestId, code: REFUSED.code });
      const refusedStream = await stream(
        server.url,
        plain.productionKey,
        { voice_id: voices.plain[vendor], output_format: FORMAT },
        [SENTENCE],
      );
      expectStreamError(refusedStream, REFUSED, false);
      failures.push({
        requestId: refusedStream.events.at(-1)?.request_id as string,
        code: REFUSED.code,
      });
    }

    expect(failures).toHaveLength(16);
    for (const { requestId, code } of failures) {
      const row = await closedRow(requestId);
      expect(
        {
          status: row.status,
          error_code: row.error_code,
          cost: Number(row.cost_millicredits),
          reserved: Number(row.reserved_millicredits),
        },
        requestId,
      ).toEqual({ status: 'failed', error_code: code, cost: 0, reserved: 0 });
    }
    expect(await balance(owner.workspaceId)).toBe(ownerBefore);
    expect(await balance(plain.workspaceId)).toBe(plainBefore);
  });

  it('never shows a provider, model, voice reference, key or upstream request id to a client', () => {
    const upstreamIds = [
      ...elevenlabs.requests.map((request) => upstreamRequestId('elevenlabs', request)),
      ...fish.requests.map((request) => upstreamRequestId('fishaudio', request)),
    ].filter((id): id is string => id !== undefined);
    expect(upstreamIds.length).toBeGreaterThan(10);
    const keys = [elevenlabs.apiKey, fish.apiKey, WRONG_EL_KEY, WRONG_FISH_KEY];
    expectNothingLeaked(seen, [
      EL_VOICE,
      FISH_VOICE,
      EL_MODEL,
      FISH_MODEL,
      ...keys,
      ...upstreamIds,
    ]);
    for (const key of keys) expect(server.output()).not.toContain(key);
  });
});

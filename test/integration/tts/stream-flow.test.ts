import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
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
import {
  audioOf,
  openStream,
  type ServerEvent,
  type StreamClient,
  streamRequest,
  streamUrl,
} from '../../helpers/stream.ts';
import { decodeDelivered } from '../../helpers/tts.ts';
import { budget, sleep, waitFor } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!.id;
const PAGE = Array.from(
  { length: 60 },
  (_, i) => `Paragraph ${i + 1} of the long reading keeps the engine busy for a while.`,
).join(' ');

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

async function ledgerRow(handle: DatabaseHandle, requestId: string) {
  return handle.db
    .selectFrom('synthesis_requests')
    .selectAll()
    .where('request_id', '=', requestId)
    .executeTakeFirstOrThrow();
}

async function waitForRow(handle: DatabaseHandle, requestId: string, status: string) {
  return waitFor(
    async () => {
      const row = await handle.db
        .selectFrom('synthesis_requests')
        .selectAll()
        .where('request_id', '=', requestId)
        .executeTakeFirst();
      return row?.status === status ? row : undefined;
    },
    { what: `ledger row ${requestId} to become ${status}` },
  );
}

function audioBytes(events: ServerEvent[]): number {
  return audioOf(events).byteLength;
}

/** Synthesis on a busy machine: audio for a few seconds of speech may take this long. */
const SYNTHESIS_DEADLINE_MS = 60_000;

async function waitForAudioBytes(client: StreamClient, bytes: number): Promise<void> {
  const outcome = await waitFor(
    () => client.events.find((e) => e.event === 'error') ?? audioBytes(client.events) >= bytes,
    { what: `${bytes} audio bytes`, timeoutMs: SYNTHESIS_DEADLINE_MS, intervalMs: 10 },
  );
  if (outcome !== true) throw new Error(`the stream failed: ${JSON.stringify(outcome)}`);
}

/** A test that synthesizes a few streams (at most a few minutes of audio) on a busy machine. */
const STREAM_TEST_MS = budget({ extraMs: 2 * SYNTHESIS_DEADLINE_MS });
vi.setConfig({ testTimeout: STREAM_TEST_MS });

describe('streaming synthesis flow', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      server = await apis.start(database, {
        env: {
          STREAM_MAX_CONCURRENT_PER_WORKSPACE: '2',
          // Streams held open on purpose must not idle out, however slow the machine.
          STREAM_IDLE_TIMEOUT_MS: String(STREAM_TEST_MS),
          TTS_RATE_LIMIT_PER_MINUTE: '0',
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    if (process.env.DEBUG_SERVER) console.log(server?.output().slice(-5000));
  });

  const connect = (ws: SeededWorkspace) =>
    openStream(streamUrl(server.url), { authorization: `Bearer ${ws.productionKey}` });

  const oneShotPcm = async (ws: SeededWorkspace, text: string) => {
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text, voice_id: VOICE, output_format: 'pcm_24000' }),
    });
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  };

  it('delivers each flushed segment before the next is sent, with seq continuous across three flushes', async () => {
    const ws = await seedWorkspace(handle);
    const segments = [
      'The first segment speaks.',
      'A second one follows it.',
      'And the third ends here.',
    ];
    const expected = await Promise.all(segments.map((text) => oneShotPcm(ws, text)));
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    const boundaries: number[] = [];
    let total = 0;
    for (const [index, text] of segments.entries()) {
      client.send({ event: 'text', text });
      client.send({ event: 'flush' });
      total += expected[index]!.byteLength;
      // Allow the resampler's short look-ahead to stay behind until the next input.
      await waitForAudioBytes(client, total - 512);
      boundaries.push(audioBytes(client.events));
    }
    client.send({ event: 'stop' });
    expect((await client.closed).code).toBe(1000);
    const audio = client.events.filter((e) => e.event === 'audio');
    expect(audio.map((e) => e.seq)).toEqual(audio.map((_, i) => i + 1));
    expect(client.events.at(-1)!.event).toBe('finish');

    const pcm = audioOf(client.events);
    let start = 0;
    for (const [index, end] of boundaries.entries()) {
      const segment = await decodeDelivered('pcm_24000', pcm.subarray(start, end));
      const reference = await decodeDelivered('pcm_24000', expected[index]!);
      expect(
        Math.abs(segment.durationMs - reference.durationMs) / reference.durationMs,
      ).toBeLessThan(0.05);
      expect(segment.rms).toBeGreaterThan(0.01);
      start = end;
    }
    expect(client.events.find((e) => e.event === 'usage')!.usage).toMatchObject({
      chars: segments.join('').length,
    });
  });

  it.each(['opus_48000_64', 'aac_44100_128', 'pcm_44100', 'pcm_48000'])(
    'keeps %s one decodable stream across segments',
    async (format) => {
      const ws = await seedWorkspace(handle);
      const { events } = await streamRequest(
        await connect(ws),
        { voice_id: VOICE, output_format: format },
        [
          'One part of the text.',
          { flush: true },
          'Another part.',
          { flush: true },
          'The last part.',
        ],
      );
      expect(events.at(-1)!.event).toBe('finish');
      for (const event of events.filter((e) => e.event === 'audio'))
        expect(event.format).toBe(format);
      const decoded = await decodeDelivered(format, audioOf(events));
      const audioMs = (events.find((e) => e.event === 'usage')!.usage as { audio_ms: number })
        .audio_ms;
      expect(decoded.channels).toBe(1);
      expect(decoded.sampleRateHz).toBe(
        format === 'aac_44100_128' || format === 'pcm_44100' ? 44100 : 48000,
      );
      expect(Math.abs(decoded.durationMs - audioMs) / audioMs).toBeLessThan(0.05);
      expect(decoded.rms).toBeGreaterThan(0.01);
    },
  );

  it('pauses synthesis for a client that stops reading, without buffering, and loses nothing', async () => {
    const ws = await seedWorkspace(handle);
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_48000' } });
    for (let i = 0; i < 3; i++) client.send({ event: 'text', text: PAGE.slice(0, 4900) });
    client.send({ event: 'stop' });
    const first = await client.waitFor((e) => e.event === 'audio');
    const pid = server.process.pid as number;
    const rssBefore = rssBytes(pid);
    client.socket.pause();
    // A client that stops reading for five seconds: the pause is the subject of the test.
    await sleep(5000);
    // Unbounded buffering would hold about 128 MB of base64 audio by now (less on a slow
    // machine, but never more than the bound with backpressure working).
    expect(rssBytes(pid) - rssBefore).toBeLessThan(48 * 1024 * 1024);
    expect((await ledgerRow(handle, first.request_id as string)).status).toBe('started');
    client.socket.resume();
    expect((await client.closed).code).toBe(1000);
    const audio = client.events.filter((e) => e.event === 'audio');
    expect(audio.map((e) => e.seq)).toEqual(audio.map((_, i) => i + 1));
    const usage = client.events.find((e) => e.event === 'usage')!.usage as { audio_ms: number };
    const deliveredMs = (audioBytes(client.events) / 2 / 48000) * 1000;
    expect(Math.abs(deliveredMs - usage.audio_ms) / usage.audio_ms).toBeLessThan(0.05);
    expect(client.events.at(-1)!.event).toBe('finish');
  });

  it('cancels synthesis when the client closes, and charges only what was synthesized', async () => {
    const ws = await seedWorkspace(handle, { credits: 1000 });
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    client.send({ event: 'text', text: 'A short first part.' });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: PAGE.slice(0, 4900) });
    client.send({ event: 'stop' });
    await waitForAudioBytes(client, 48_000 * 3);
    const requestId = client.events[0]!.request_id as string;
    client.socket.terminate();
    const row = await waitForRow(handle, requestId, 'cancelled');
    expect(row.chars_synthesized).toBe('A short first part.'.length);
    expect(Number(row.cost_millicredits)).toBe(Math.ceil(19 * 10));
    const balance = (await new Workspaces(handle.db).get(ws.workspaceId)).credits;
    expect(balance).toBeCloseTo(1000 - 0.19, 5);
  });

  it('ends with a retryable provider_error after partial audio when the engine dies', async () => {
    const ws = await seedWorkspace(handle);
    const client = await connect(ws);
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'opus_48000_64' } });
    for (let i = 0; i < 3; i++) client.send({ event: 'text', text: PAGE.slice(0, 4900) });
    client.send({ event: 'stop' });
    await client.waitFor((e) => e.event === 'audio');
    client.socket.pause();
    // The long-lived engines are children of the server (their per-utterance forks are
    // grandchildren); with NATIVE_ENGINE_PERSISTENT=false espeak-ng runs under the launcher.
    const descendants = (parent: number) =>
      // ps exits 1 when the process has no children.
      execFileSync('sh', ['-c', `ps --ppid ${parent} -o pid=,comm= || true`])
        .toString()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const [pid, comm] = line.trim().split(/\s+/);
          return { pid: Number(pid), comm: comm ?? '' };
        });
    const children = descendants(server.process.pid!)
      .flatMap((child) => [child, ...descendants(child.pid)])
      .filter((p) => p.comm.includes('espeak'))
      .map((p) => p.pid);
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        // A long-lived engine's templates die with it (ESRCH when killed after it).
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    client.socket.resume();
    expect((await client.closed).code).toBe(1000);
    const last = client.events.at(-1)!;
    expect(last).toMatchObject({ event: 'error', code: 'provider_error', retryable: true });
    expect(client.events.filter((e) => e.event === 'audio').length).toBeGreaterThan(0);
    expect(client.events.some((e) => e.event === 'finish' || e.event === 'usage')).toBe(false);
    await waitForRow(handle, last.request_id as string, 'failed');

    // The pool recovers: the next request succeeds.
    const { events } = await streamRequest(
      await connect(ws),
      { voice_id: VOICE, output_format: 'pcm_24000' },
      ['Recovered.'],
    );
    expect(events.at(-1)!.event).toBe('finish');
  });

  it('refuses a start over the workspace stream limit with a retryable rate_limited error', async () => {
    const ws = await seedWorkspace(handle);
    const open: StreamClient[] = [];
    for (let i = 0; i < 2; i++) {
      const client = await connect(ws);
      client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
      client.send({ event: 'text', text: 'Held open.' });
      open.push(client);
    }
    // Both hold their slot once their ledger rows are open (the slot is taken first).
    await waitFor(
      async () =>
        (
          await handle.db
            .selectFrom('synthesis_requests')
            .select('request_id')
            .where('workspace_id', '=', ws.workspaceId)
            .where('status', '=', 'started')
            .execute()
        ).length === 2,
      { what: 'two open streams' },
    );
    const third = await connect(ws);
    third.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    expect((await third.closed).code).toBe(1000);
    expect(third.events).toEqual([
      expect.objectContaining({ event: 'error', code: 'rate_limited', retryable: true }),
    ]);

    open[0]!.send({ event: 'stop' });
    await open[0]!.closed;
    const fourth = await connect(ws);
    const { events } = await streamRequest(
      fourth,
      { voice_id: VOICE, output_format: 'pcm_24000' },
      ['A slot is free.'],
    );
    expect(events.at(-1)!.event).toBe('finish');
    open[1]!.socket.close();
  });

  it('ends an idle connection with an error event, before start and between events', {
    timeout: budget({ servers: 1 }),
  }, async () => {
    // A server of its own: a short idle timeout keeps this test quick, while the other
    // tests hold streams open on purpose.
    const idle = await startServer({ database, env: { STREAM_IDLE_TIMEOUT_MS: '1500' } });
    const connectIdle = (ws: SeededWorkspace) =>
      openStream(streamUrl(idle.url), { authorization: `Bearer ${ws.productionKey}` });
    try {
      const ws = await seedWorkspace(handle);
      const silent = await connectIdle(ws);
      expect((await silent.closed).code).toBe(1000);
      expect(silent.events).toEqual([
        expect.objectContaining({ event: 'error', code: 'invalid_request' }),
      ]);

      const stalled = await connectIdle(ws);
      stalled.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
      stalled.send({ event: 'text', text: 'Then nothing more.' });
      await stalled.closed;
      expect(stalled.events.at(-1)).toMatchObject({ event: 'error', code: 'invalid_request' });
      const row = await waitForRow(handle, stalled.events.at(-1)!.request_id as string, 'failed');
      expect(row.cost_millicredits).toBe(0);
    } finally {
      await idle.stop();
    }
  });
});

describeEachDialect('streaming credit on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      server = await apis.start(database);
    },
    budget({ servers: 1 }),
  );

  it('reserves credit as text arrives and ends with insufficient_credit when it runs out', async () => {
    // 1 credit covers 100 characters at 10 credits per 1,000.
    const ws = await seedWorkspace(handle, { credits: 1 });
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
    client.send({ event: 'text', text: 'x'.repeat(60) });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: 'y'.repeat(60) });
    client.send({ event: 'stop' });
    await client.closed;
    const last = client.events.at(-1)!;
    expect(last).toMatchObject({ event: 'error', code: 'insufficient_credit', retryable: false });
    const row = await waitForRow(handle, last.request_id as string, 'failed');
    expect(row.error_code).toBe('insufficient_credit');
    const balance = (await new Workspaces(handle.db).get(ws.workspaceId)).credits;
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance).toBeLessThanOrEqual(1);
  });

  it('gives every stream opened at once its terminal event', async () => {
    // The handshake waits on the database (on PostgreSQL outside uWS callbacks): each
    // socket must survive its upgrade and answer frames sent at once.
    const ws = await seedWorkspace(handle);
    const streams = 24;
    const outcomes = await Promise.all(
      Array.from({ length: streams }, async () => {
        const client = await openStream(streamUrl(server.url), {
          authorization: `Bearer ${ws.productionKey}`,
        });
        client.send({ event: 'start', request: { voice_id: VOICE, output_format: 'pcm_24000' } });
        client.send({ event: 'stop' });
        const { code } = await client.closed;
        return { code, events: client.events.map((e) => `${e.event}:${e.code ?? ''}`) };
      }),
    );
    expect(outcomes).toEqual(
      Array.from({ length: streams }, () => ({ code: 1000, events: ['error:invalid_request'] })),
    );
  });
});

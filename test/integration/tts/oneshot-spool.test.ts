import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
import { FakeElevenLabs } from '../../fakes/elevenlabs.ts';
import {
  afterAll,
  beforeAll,
  describe,
  dialectSuite,
  expect,
  it,
  vi,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { type RunningServer, startServer } from '../../helpers/server.ts';
import { importVoice } from '../../helpers/upstream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

// Long syntheses (tens of megabytes of PCM) on a busy machine.
vi.setConfig({ testTimeout: budget({ extraMs: 120_000 }) });

const VOICE = NATIVE_VOICES[0]!.id;
/** The spooling server keeps at most this much audio of an answer in memory. */
const MEMORY_MAX_BYTES = 64 * 1024;
const sentences = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => `Sentence ${i + 1} of the long reading keeps the engine busy for a while.`,
  ).join(' ');
/** About a minute of speech: megabytes of PCM, far past the memory limit. */
const LONG_TEXT = sentences(15);
/**
 * Several minutes of speech at 48 kHz (about 20 MB): more than socket buffers hold, so an
 * answer the client stops reading is still being sent from its file.
 */
const VERY_LONG_TEXT = sentences(60);
/** Past the memory limit when it stalls, so the failed answer had a file. */
const STALL_AFTER_BYTES = 4 * MEMORY_MAX_BYTES;

/** How AudioSpool names this host in its file names. */
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_');
const spoolName = (host: string, pid: number) => `oneshot-${host}-${pid}-${randomUUID()}.audio`;

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

describe('one-shot answers past ONESHOT_MEMORY_MAX_BYTES go through a spool file', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let fake: FakeElevenLabs;
  /** Spools past MEMORY_MAX_BYTES into `spoolDir`. */
  let spooling: RunningServer;
  /** Holds every answer in memory (the default 4 MiB limit is never reached here). */
  let inMemory: RunningServer;
  let spoolDir: string;
  let upstreamVoice: string;
  const planted = {
    crashedHere: spoolName(HOST, 0),
    oldForeign: spoolName('other-host', 4242),
    freshForeign: spoolName('other-host', 4243),
    unrelated: 'notes.txt',
  };

  const spoolFiles = () => readdir(spoolDir);
  const expectSpoolEmpty = async () =>
    waitFor(async () => (await spoolFiles()).length === 0, { what: 'the spool folder to empty' });

  const tts = (server: RunningServer, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.productionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  beforeAll(
    async ({ databases }) => {
      fake = await FakeElevenLabs.start({
        chunkDelayMs: 1,
        apiKey: `el-key-${randomBytes(8).toString('hex')}`,
      });
      ({ database, handle } = await databases.get('sqlite'));
      ws = await seedWorkspace(handle);
      spoolDir = await mkdtemp(path.join(tmpdir(), 'awp-spool-'));
      // What crashed processes could have left, and what is not ours to touch.
      planted.crashedHere = spoolName(HOST, deadPid());
      for (const name of Object.values(planted)) await writeFile(path.join(spoolDir, name), 'x');
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
      await utimes(path.join(spoolDir, planted.oldForeign), twoDaysAgo, twoDaysAgo);
      const common = { TTS_RATE_LIMIT_PER_MINUTE: '0', AUDIO_PERSISTENCE: 'false' };
      [spooling, inMemory] = await Promise.all([
        startServer({
          database,
          env: {
            ...common,
            // Persisted: a spooled answer goes to persistence as its file.
            AUDIO_PERSISTENCE: 'true',
            ONESHOT_MEMORY_MAX_BYTES: String(MEMORY_MAX_BYTES),
            ONESHOT_SPOOL_DIR: spoolDir,
            ELEVENLABS_API_BASE: fake.url,
            ELEVENLABS_API_KEY: fake.apiKey,
            // A stalled vendor fails the request after this long.
            UPSTREAM_IDLE_TIMEOUT_MS: '3000',
          },
        }),
        startServer({ database, env: common }),
      ]);
      upstreamVoice = importVoice(spooling.env, {
        workspaceId: ws.workspaceId,
        provider: 'elevenlabs',
        providerVoiceId: 'EXAVITQu4vr4xnSDxMaL',
        model: 'eleven_v3',
        name: 'Sarah',
      });
    },
    budget({ servers: 2, awpRuns: 1 }),
  );

  afterAll(async () => {
    if (process.env.DEBUG_SERVER) console.log(spooling?.output().slice(-5000));
    await Promise.all([spooling?.stop(), inMemory?.stop()]);
    await fake?.close();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  });

  it('removes the files a crashed process of this host left, and old files of other hosts, at start', async () => {
    expect((await spoolFiles()).sort()).toEqual([planted.freshForeign, planted.unrelated].sort());
    await rm(path.join(spoolDir, planted.freshForeign));
    await rm(path.join(spoolDir, planted.unrelated));
  });

  it('answers byte for byte what an in-memory answer holds, and removes the file', async () => {
    const body = { text: LONG_TEXT, voice_id: VOICE, output_format: 'pcm_24000' };
    const [fromSpool, fromMemory] = await Promise.all([tts(spooling, body), tts(inMemory, body)]);
    expect(fromSpool.status).toBe(200);
    expect(fromMemory.status).toBe(200);
    const [spooled, held] = await Promise.all([
      fromSpool.arrayBuffer().then((b) => Buffer.from(b)),
      fromMemory.arrayBuffer().then((b) => Buffer.from(b)),
    ]);
    expect(held.byteLength).toBeGreaterThan(20 * MEMORY_MAX_BYTES);
    expect(spooled.equals(held)).toBe(true);
    for (const name of ['content-type', 'x-audio-format', 'x-audio-duration-ms']) {
      expect(fromSpool.headers.get(name), name).toBe(fromMemory.headers.get(name));
    }
    // The in-memory answer has its length up front; the spooled one is sent from its file.
    expect(fromMemory.headers.get('content-length')).toBe(String(held.byteLength));
    expect(fromSpool.headers.get('transfer-encoding')).toBe('chunked');
    await expectSpoolEmpty();
    // The persisted copy is the answer, byte for byte.
    const requestId = fromSpool.headers.get('x-request-id')!;
    const location = await waitFor(
      async () => {
        const row = await handle.db
          .selectFrom('synthesis_requests')
          .select(['audio_persisted', 'audio_location'])
          .where('request_id', '=', requestId)
          .executeTakeFirstOrThrow();
        return Number(row.audio_persisted) === 1 ? row.audio_location : undefined;
      },
      { what: 'the spooled answer to be persisted', intervalMs: 100 },
    );
    expect((await readFile(fileURLToPath(location!))).equals(spooled)).toBe(true);
  });

  it('keeps a short answer in memory: no file, its length up front', async () => {
    const response = await tts(spooling, {
      text: 'Hi.',
      voice_id: VOICE,
      output_format: 'pcm_24000',
    });
    const audio = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(audio.byteLength).toBeLessThan(MEMORY_MAX_BYTES);
    expect(response.headers.get('content-length')).toBe(String(audio.byteLength));
    expect(await spoolFiles()).toEqual([]);
  });

  it('removes the file when the client leaves during synthesis', async () => {
    const abort = new AbortController();
    const pending = tts(
      spooling,
      { text: VERY_LONG_TEXT, voice_id: VOICE, output_format: 'pcm_48000' },
      abort.signal,
    ).catch((error: unknown) => error);
    await waitFor(async () => (await spoolFiles()).length === 1, {
      what: 'the answer to be spooled',
      intervalMs: 10,
    });
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    await expectSpoolEmpty();
  });

  it('removes the file when the client leaves mid-answer', async () => {
    const abort = new AbortController();
    const response = await tts(
      spooling,
      { text: VERY_LONG_TEXT, voice_id: VOICE, output_format: 'pcm_48000' },
      abort.signal,
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value!.byteLength).toBeGreaterThan(0);
    // The client reads no further: the rest waits in the file.
    expect(await spoolFiles()).toHaveLength(1);
    abort.abort();
    await reader.cancel().catch(() => {});
    await expectSpoolEmpty();
  });

  it('answers the error object, not partial audio, when the vendor fails after the memory limit, and removes the file', async () => {
    fake.failNext({ kind: 'stall_after_bytes', bytes: STALL_AFTER_BYTES });
    const pending = tts(spooling, {
      text: LONG_TEXT,
      voice_id: upstreamVoice,
      output_format: 'pcm_24000',
    });
    await waitFor(async () => (await spoolFiles()).length === 1, {
      what: 'the partial answer to be spooled',
      intervalMs: 10,
    });
    const response = await pending;
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-audio-format')).toBeNull();
    expect(await response.json()).toEqual({
      event: 'error',
      request_id: response.headers.get('x-request-id'),
      code: 'provider_error',
      retryable: true,
      detail: expect.any(String),
    });
    await expectSpoolEmpty();
  });
});

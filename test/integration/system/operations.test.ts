import { request as httpRequest } from 'node:http';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/index.ts';
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
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { closeQuietly, openStream, streamRequest, streamUrl } from '../../helpers/stream.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const VOICE = NATIVE_VOICES[0]!.id;
// A burst of 2 requests, then one every 5 s: far slower than the requests below.
const WORKSPACE_PER_MINUTE = 12;

vi.setConfig({ testTimeout: budget({ extraMs: 60_000 }) });

/** The value of one sample line of a Prometheus text scrape, or undefined. */
function sample(
  scrape: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of scrape.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function scrape(server: RunningServer): Promise<string> {
  const response = await fetch(`${server.metricsUrl}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

function oneShot(server: RunningServer | string, key: string, text: string, format = 'pcm_24000') {
  const base = typeof server === 'string' ? server : server.url;
  return fetch(`${base}/v1/tts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ voice_id: VOICE, text, output_format: format }),
  });
}

/** POST with a Host header of the client's choosing (fetch does not allow setting it). */
function mintWithHost(
  base: string,
  key: string,
  host: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL('/v1/tts/stream-tokens', base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { host, authorization: `Bearer ${key}` } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describeEachDialect('operations on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      server = await apis.start(database, {
        env: {
          NATIVE_MAX_PROCESSES: '1',
          ONESHOT_MAX_CONCURRENT: '1',
          TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: String(WORKSPACE_PER_MINUTE),
          AUDIO_PERSISTENCE: 'false',
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await server?.stop();
  });

  it('reports domain metrics after real one-shot and streaming traffic', async () => {
    const ws = await seedWorkspace(handle);
    const before = await scrape(server);
    // Swept at start (the ledger's dead-peer sweep), whatever it closed.
    expect(sample(before, 'awp_ledger_sweeps_total')).toBeGreaterThanOrEqual(1);

    expect((await oneShot(server, ws.productionKey, 'Metrics, one shot.')).status).toBe(200);
    const client = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    await waitFor(async () => sample(await scrape(server), 'awp_tts_streams_open') === 1, {
      what: 'the open stream to be counted',
    });
    const done = await streamRequest(client, { voice_id: VOICE, output_format: 'pcm_24000' }, [
      'Metrics, streamed.',
      { flush: true },
    ]);
    expect(done.events.at(-1)?.event).toBe('finish');
    // A protocol error ends a stream with a code the failure counter names.
    const bad = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    bad.send({ event: 'text', text: 'before start' });
    await bad.closed;
    await closeQuietly(client);

    const after = await waitFor(
      async () => {
        const text = await scrape(server);
        return sample(text, 'awp_tts_streams_open') === 0 && text;
      },
      { what: 'both streams to be counted closed' },
    );
    expect(
      sample(after, 'awp_tts_time_to_first_audio_seconds_count', { transport: 'http' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'awp_tts_time_to_first_audio_seconds_count', { transport: 'websocket' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'awp_tts_synthesis_failures_total', {
        transport: 'websocket',
        code: 'invalid_request',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Persistence is off here, so no job queue is watched; the series exist regardless.
    expect(after).toContain('# TYPE awp_provider_queue_wait_seconds histogram');
    expect(after).toContain('# TYPE awp_limiter_fallbacks_total counter');
    expect(after).toContain('# TYPE awp_job_queue_depth gauge');
  });

  it('answers provider_unavailable at once beyond the one-shot cap', async () => {
    const ws = await seedWorkspace(handle);
    const long = 'A long sentence that keeps the only engine busy for a while. '.repeat(60);
    const first = oneShot(server, ws.productionKey, long, 'aac_44100_128');
    await waitFor(
      async () => (sample(await scrape(server), 'awp_http_in_flight_requests') ?? 0) >= 1,
      { what: 'the first synthesis to be running', intervalMs: 5 },
    );
    const refused = await oneShot(server, ws.productionKey, 'Second.');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'provider_unavailable', retryable: true });
    const firstResponse = await first.catch((error: unknown) => {
      throw new Error(`first request failed: ${String(error)}\n${server.output().slice(-3000)}`);
    });
    expect(firstResponse.status).toBe(200);
    expect((await oneShot(server, ws.productionKey, 'Third.')).status).toBe(200);
  });

  it('limits a workspace as a whole, whichever of its keys sends', async () => {
    const ws = await seedWorkspace(handle);
    const burst = WORKSPACE_PER_MINUTE / 6;
    // Each key on the listener of its environment.
    const callers: [string, string][] = [
      [server.url, ws.productionKey],
      [server.devUrl, ws.developmentKey],
    ];
    const statuses: number[] = [];
    // Sequential: the one-shot cap of this server is 1.
    for (let i = 0; i < burst; i++) {
      const [base, key] = callers[i % 2]!;
      const response = await oneShot(base, key, 'Hi.');
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array(burst).fill(200));
    for (const [base, key] of callers) {
      const response = await oneShot(base, key, 'Hi.');
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await response.json()).toMatchObject({ code: 'rate_limited' });
    }
    // Another workspace is unaffected.
    const other = await seedWorkspace(handle);
    expect((await oneShot(server, other.productionKey, 'Hi.')).status).toBe(200);
  });

  it('gives websocket_url from configuration, never from the Host header', async () => {
    const ws = await seedWorkspace(handle);
    const port = new URL(server.url).port;
    const minted = await mintWithHost(server.url, ws.productionKey, 'attacker.example');
    expect(minted.status).toBe(200);
    expect(minted.body.websocket_url).toBe(`ws://localhost:${port}/v1/tts/stream`);
  });
});

describe('configured websocket_url', () => {
  dialectSuite('sqlite');
  it(
    'is PUBLIC_WS_URL / PUBLIC_DEV_WS_URL per environment',
    async ({ database, handle, apis }) => {
      const ws = await seedWorkspace(handle);
      const server = await apis.start(database, {
        env: {
          PUBLIC_WS_URL: 'wss://speech.example.com/v1/tts/stream',
          PUBLIC_DEV_BASE_URL: 'https://dev.example.com/base/',
        },
      });
      try {
        const production = await mintWithHost(server.url, ws.productionKey, 'attacker.example');
        expect(production.body.websocket_url).toBe('wss://speech.example.com/v1/tts/stream');
        const development = await mintWithHost(server.devUrl, ws.developmentKey, 'x.example');
        expect(development.body.websocket_url).toBe('wss://dev.example.com/base/v1/tts/stream');
      } finally {
        await server.stop();
      }
    },
    budget({ servers: 1, extraMs: 20_000 }),
  );
});

describe('the ffmpeg encoder cap', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      server = await apis.start(database, { env: { FFMPEG_MAX_ENCODERS: '1' } });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses an AAC request while every ffmpeg encoder is taken, and serves it after', async () => {
    const ws = await seedWorkspace(handle);
    const holder = await openStream(streamUrl(server.url), {
      authorization: `Bearer ${ws.productionKey}`,
    });
    holder.send({ event: 'start', request: { voice_id: VOICE, output_format: 'aac_44100_128' } });
    holder.send({ event: 'text', text: 'The stream holds the only encoder.' });
    holder.send({ event: 'flush' });
    await holder.waitFor((event) => event.event === 'audio');

    const refused = await oneShot(server, ws.productionKey, 'Second.', 'aac_44100_128');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'provider_unavailable', retryable: true });
    // Formats encoded in-process are not counted.
    expect((await oneShot(server, ws.productionKey, 'PCM.', 'pcm_24000')).status).toBe(200);

    holder.send({ event: 'stop' });
    await holder.closed;
    expect(holder.events.at(-1)?.event).toBe('finish');
    const served = await waitFor(
      async () => {
        const response = await oneShot(server, ws.productionKey, 'Third.', 'aac_44100_128');
        return response.status === 200 && response;
      },
      { what: 'the encoder to be free again' },
    );
    expect(served.headers.get('content-type')).toBe('audio/aac');
  });
});

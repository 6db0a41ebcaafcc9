import { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { openTestDatabase, seedWorkspace } from '../../test/helpers/seed.ts';
import { type RunningServer, startServer } from '../../test/helpers/server.ts';
import { nowMs, processTreeCpuSeconds, quantile, runConcurrently } from './stats.ts';

export interface OneShotResult {
  concurrency: number;
  requests: number;
  latencyMs: { p50: number; p95: number };
  requestsPerS: number;
  /** CPU seconds of the api process (and its engine subprocesses) per request. */
  serverCpuMsPerRequest: number;
}

/** Service settings the benchmark passes on to the api process when set. */
const SERVICE_SETTINGS = [
  'NATIVE_ENGINE_LAUNCHER',
  'NATIVE_ENGINE_PERSISTENT',
  'NATIVE_ENGINE_HELPER',
  'TRANSCODE_THREADS',
  'OPUS_COMPLEXITY',
  'NATIVE_MAX_PROCESSES',
  'PROVIDER_QUEUE_MAX_WAITING',
  'AUDIO_PERSISTENCE',
];

/** A real api process on SQLite with one funded workspace, for `POST /v1/tts`. */
export class OneShotTarget {
  #database: TestDatabase | undefined;
  #server: RunningServer | undefined;
  #key = '';

  get url(): string {
    return (this.#server as RunningServer).url;
  }

  get key(): string {
    return this.#key;
  }

  get pid(): number {
    return (this.#server as RunningServer).process.pid as number;
  }

  async start(): Promise<void> {
    await requireRedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    this.#database = await createTestDatabase('sqlite');
    const handle = await openTestDatabase(this.#database);
    const seeded = await seedWorkspace(handle, { credits: 100_000_000 });
    await handle.close();
    this.#key = seeded.productionKey;
    this.#server = await startServer({
      database: this.#database,
      // Node arguments for the api alone (bench/PROFILING.md), never for this process.
      nodeArgs: (process.env.AWP_API_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
      env: {
        TTS_RATE_LIMIT_PER_MINUTE: '10000000',
        TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: '10000000',
        // Settings to compare, e.g. `NATIVE_ENGINE_LAUNCHER=false npm run bench`.
        ...Object.fromEntries(
          SERVICE_SETTINGS.flatMap((name) => {
            const value = process.env[name];
            return value ? [[name, value]] : [];
          }),
        ),
      },
    });
  }

  async #request(voiceId: string, text: string): Promise<number> {
    const server = this.#server as RunningServer;
    const started = nowMs();
    const response = await fetch(`${server.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ voice_id: voiceId, text, output_format: 'pcm_24000' }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`POST /v1/tts answered ${response.status}`);
    return nowMs() - started;
  }

  async measure(
    voiceId: string,
    text: string,
    concurrency: number,
    requests: number,
  ): Promise<OneShotResult> {
    const pid = (this.#server as RunningServer).process.pid as number;
    await runConcurrently(concurrency * 2, concurrency, async () => {
      await this.#request(voiceId, text);
    });
    const latencies: number[] = [];
    const cpuBefore = processTreeCpuSeconds(pid);
    const wallMs = await runConcurrently(requests, concurrency, async () => {
      latencies.push(await this.#request(voiceId, text));
    });
    const cpu = processTreeCpuSeconds(pid) - cpuBefore;
    return {
      concurrency,
      requests,
      latencyMs: { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) },
      requestsPerS: requests / (wallMs / 1000),
      serverCpuMsPerRequest: (cpu * 1000) / requests,
    };
  }

  async stop(): Promise<void> {
    await this.#server?.stop();
    await this.#database?.drop();
  }
}

/**
 * Fails at once when the api's Redis does not answer. Without it every request would wait
 * for the rate limiter's Redis timeout before its local fallback, and the rows would
 * measure that wait (about 500 ms per request) instead of the service.
 */
async function requireRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    throw new Error(
      `the benchmark needs a Redis at ${url} (set TEST_REDIS_URL, or use \`npm run bench\`, which starts one)`,
    );
  } finally {
    redis.disconnect();
  }
}

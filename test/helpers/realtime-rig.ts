// The stack of a realtime test in one call: a database, a seeded workspace, a real
// livekit-server (or a two-node LiveKit cluster), the OpenAI chat fake as the Agents' model,
// the api and the agent worker.

import type { DatabaseHandle } from '../../src/db/connect.ts';
import { FakeOpenAiChat } from '../fakes/openai-chat.ts';
import { type ApiClient, apiClient } from './agents.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from './database.ts';
import { type LivekitServer, startLivekit } from './livekit.ts';
import { type LivekitCluster, startLivekitCluster } from './livekit-cluster.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from './seed.ts';
import { type RunningServer, serviceEnv, startServer } from './server.ts';
import { freePort, startWorker, type WorkerProcess } from './worker.ts';

export interface RealtimeRig {
  database: TestDatabase;
  handle: DatabaseHandle;
  /** The LiveKit the api uses (node 1 of a cluster). */
  livekit: LivekitServer;
  /** The cluster, when the rig runs one. */
  cluster: LivekitCluster | undefined;
  llm: FakeOpenAiChat;
  server: RunningServer;
  worker: WorkerProcess;
  /** The worker's environment: another worker of the same fleet starts with it (and its own port). */
  workerEnv: Record<string, string>;
  ws: SeededWorkspace;
  /** The workspace's production key. */
  api: ApiClient;
  close(): Promise<void>;
}

export interface RealtimeRigOptions {
  dialect: TestDialect;
  /** The name the worker registers under (one per test file). */
  agentName: string;
  /** Variables of both the api and the worker. */
  env?: Record<string, string>;
  /**
   * The worker's speech to text: the embedded Whisper (loaded by the idle job process
   * before any session) or, for tests that only type, the OpenAI-compatible engine,
   * which loads nothing.
   */
  stt: 'embedded' | 'none';
  /**
   * One `livekit-server --dev` (default), or a two-node cluster over one Redis: the api
   * calls node 1 and gives browsers node 1's URL, the worker registers with node 2.
   */
  livekit?: 'single' | 'cluster';
}

export async function startRealtimeRig(options: RealtimeRigOptions): Promise<RealtimeRig> {
  const database = await createTestDatabase(options.dialect);
  const handle = await openTestDatabase(database);
  const ws = await seedWorkspace(handle);
  const cluster = options.livekit === 'cluster' ? await startLivekitCluster() : undefined;
  const livekit: LivekitServer = cluster?.nodes[0] ?? (await startLivekit());
  const workerLivekit = cluster?.nodes[1] ?? livekit;
  const llm = await FakeOpenAiChat.start();
  const shared = {
    LIVEKIT_URL: livekit.url,
    // The URL browsers get: a load balancer over the nodes in production, node 1 here.
    ...(cluster ? { LIVEKIT_PUBLIC_URL: livekit.url } : {}),
    LIVEKIT_API_KEY: livekit.apiKey,
    LIVEKIT_API_SECRET: livekit.apiSecret,
    AGENT_NAME: options.agentName,
    TOKEN_SIGNING_SECRET: `${options.agentName}-signing-secret-0123456789abcdef`,
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: llm.apiKey ?? '',
    LOCAL_LLM: 'false',
    ...options.env,
  };
  const server = await startServer({ database, env: shared });
  const stt: Record<string, string> =
    options.stt === 'embedded'
      ? { STT_PROVIDER: 'embedded', WHISPER_MODEL: 'base', WHISPER_THREADS: '1' }
      : { STT_PROVIDER: 'openai', STT_OPENAI_BASE_URL: llm.baseUrl };
  const workerEnv = serviceEnv(database, {
    ...shared,
    LIVEKIT_URL: workerLivekit.url,
    REDIS_PREFIX: server.env.REDIS_PREFIX ?? 'test',
    AWP_API_URL: server.url,
    AWP_API_DEV_URL: server.devUrl,
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_IDLE_PROCESSES: '1',
    ...stt,
  });
  const worker = await startWorker(workerEnv);
  return {
    database,
    handle,
    livekit,
    cluster,
    llm,
    server,
    worker,
    workerEnv,
    ws,
    api: apiClient(server.url, ws.productionKey),
    close: async () => {
      await worker.kill();
      await server.stop();
      await llm.close();
      await (cluster ?? livekit).stop();
      await handle.close();
      await database.drop();
    },
  };
}

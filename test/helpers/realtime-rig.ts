// The stack of a realtime test in one call: a database, a seeded workspace, a real
// livekit-server (or a two-node LiveKit cluster), the OpenAI chat fake as the Agents' model,
// the api and the agent worker (or several workers of one fleet), with the speech-to-text
// engine or fake the test needs. Tests take it through test/fixtures/realtime.ts; the voice
// bench calls startRealtimeRig itself.

import type { DatabaseHandle } from '../../src/db/connect.ts';
import {
  type FakeDeepgram,
  type FakeDeepgramOptions,
  startFakeDeepgram,
} from '../fakes/deepgram.ts';
import type { LlmFakeOptions } from '../fakes/llm-server.ts';
import { FakeOpenAiChat } from '../fakes/openai-chat.ts';
import {
  type FakeTranscriptions,
  startFakeTranscriptions,
} from '../fakes/openai-transcriptions.ts';
import { type ApiClient, apiClient } from './agents.ts';
import { createTestDatabase, type TestDatabase, type TestDialect } from './database.ts';
import { type LivekitServer, startLivekit } from './livekit.ts';
import { type LivekitCluster, startLivekitCluster } from './livekit-cluster.ts';
import { RoomClient } from './room-client.ts';
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
  /** The OpenAI transcription fake, when `stt` is 'transcriptions'. */
  transcriptions: FakeTranscriptions | undefined;
  /** The Deepgram fake, when `stt` is 'deepgram'. */
  deepgram: FakeDeepgram | undefined;
  server: RunningServer;
  /** The first worker. */
  worker: WorkerProcess;
  /** Every worker the rig started, the first one included, in start order. */
  workers: WorkerProcess[];
  /** The worker's environment: another worker of the same fleet starts with it (and its own port). */
  workerEnv: Record<string, string>;
  ws: SeededWorkspace;
  /** The workspace's production key. */
  api: ApiClient;
  /** Starts one more worker of the fleet (its own port, `env` on top); the rig stops it too. */
  startWorker(env?: Record<string, string>): Promise<WorkerProcess>;
  close(): Promise<void>;
}

export interface RealtimeRigOptions {
  dialect: TestDialect;
  /** The name the worker registers under (one per test file). */
  agentName: string;
  /** Variables of both the api and the worker. */
  env?: Record<string, string>;
  /** Variables of the worker only, over everything the rig sets. */
  workerEnv?: Record<string, string>;
  /**
   * The worker's speech to text: the embedded Whisper (loaded by the idle job process
   * before any session); for tests that only type, the OpenAI-compatible engine pointed at
   * the chat fake, which loads nothing; the OpenAI transcription fake (what the user "said"
   * is scripted); or Deepgram streaming against its fake.
   */
  stt: 'embedded' | 'none' | 'transcriptions' | 'deepgram';
  /** The embedded Whisper's variables (default: the base model on one thread). */
  whisper?: Record<string, string>;
  /** The Deepgram fake's options, when `stt` is 'deepgram' (its key is the rig's). */
  deepgram?: Omit<FakeDeepgramOptions, 'apiKey'>;
  /** The chat fake's options (a first-token delay, say). */
  llm?: LlmFakeOptions;
  /** The seeded workspace's credits (seedWorkspace's default when absent). */
  credits?: number;
  /** Workers of one fleet started before the rig is handed over (default 1). */
  workers?: number;
  /**
   * One `livekit-server --dev` (default), or a two-node cluster over one Redis: the api
   * calls node 1 and gives browsers node 1's URL, the worker registers with node 2.
   */
  livekit?: 'single' | 'cluster';
}

const TRANSCRIPTIONS_KEY = 'stt-test-key';
const DEEPGRAM_KEY = 'deepgram-test-key-0123456789';
const EMBEDDED_WHISPER = { WHISPER_MODEL: 'base', WHISPER_THREADS: '1' };

interface SpeechToText {
  env: Record<string, string>;
  transcriptions: FakeTranscriptions | undefined;
  deepgram: FakeDeepgram | undefined;
}

/** The worker's speech-to-text variables, and the fake that answers them when there is one. */
async function startSpeechToText(
  options: RealtimeRigOptions,
  llm: FakeOpenAiChat,
): Promise<SpeechToText> {
  const none = { transcriptions: undefined, deepgram: undefined };
  switch (options.stt) {
    case 'embedded':
      return {
        ...none,
        env: { STT_PROVIDER: 'embedded', ...(options.whisper ?? EMBEDDED_WHISPER) },
      };
    case 'none':
      return { ...none, env: { STT_PROVIDER: 'openai', STT_OPENAI_BASE_URL: llm.baseUrl } };
    case 'transcriptions': {
      const transcriptions = await startFakeTranscriptions({ apiKey: TRANSCRIPTIONS_KEY });
      const env = {
        STT_PROVIDER: 'openai',
        STT_OPENAI_BASE_URL: transcriptions.url,
        STT_OPENAI_API_KEY: TRANSCRIPTIONS_KEY,
      };
      return { ...none, transcriptions, env };
    }
    case 'deepgram': {
      const deepgram = await startFakeDeepgram({ ...options.deepgram, apiKey: DEEPGRAM_KEY });
      const env = {
        STT_PROVIDER: 'deepgram',
        DEEPGRAM_API_KEY: DEEPGRAM_KEY,
        DEEPGRAM_BASE_URL: deepgram.url,
      };
      return { ...none, deepgram, env };
    }
  }
}

export async function startRealtimeRig(options: RealtimeRigOptions): Promise<RealtimeRig> {
  const database = await createTestDatabase(options.dialect);
  const handle = await openTestDatabase(database);
  const ws = await seedWorkspace(
    handle,
    options.credits === undefined ? {} : { credits: options.credits },
  );
  const cluster = options.livekit === 'cluster' ? await startLivekitCluster() : undefined;
  const livekit: LivekitServer = cluster?.nodes[0] ?? (await startLivekit());
  const workerLivekit = cluster?.nodes[1] ?? livekit;
  const llm = await FakeOpenAiChat.start(options.llm);
  const stt = await startSpeechToText(options, llm);
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
  const workerEnv = serviceEnv(database, {
    ...shared,
    LIVEKIT_URL: workerLivekit.url,
    REDIS_PREFIX: server.env.REDIS_PREFIX ?? 'test',
    AWP_API_URL: server.url,
    AWP_API_DEV_URL: server.devUrl,
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_IDLE_PROCESSES: '1',
    ...stt.env,
    ...options.workerEnv,
  });
  const workers = [await startWorker(workerEnv)];
  const another = async (env: Record<string, string> = {}) => {
    const worker = await startWorker({
      ...workerEnv,
      WORKER_HTTP_PORT: String(await freePort()),
      ...env,
    });
    workers.push(worker);
    return worker;
  };
  for (let i = 1; i < (options.workers ?? 1); i++) await another();
  return {
    database,
    handle,
    livekit,
    cluster,
    llm,
    transcriptions: stt.transcriptions,
    deepgram: stt.deepgram,
    server,
    worker: workers[0] as WorkerProcess,
    workers,
    workerEnv,
    ws,
    api: apiClient(server.url, ws.productionKey),
    startWorker: another,
    close: async () => {
      for (const worker of workers) await worker.kill();
      await server.stop();
      await llm.close();
      await stt.transcriptions?.close();
      await stt.deepgram?.close();
      await (cluster ?? livekit).stop();
      await handle.close();
      await database.drop();
    },
  };
}

/**
 * Starts a live session of `agentId` with a session token and joins its user; resolves once
 * the Agent said `greeting` and listens.
 */
export async function joinAgentSession(
  rig: Pick<RealtimeRig, 'api' | 'server'>,
  agentId: string,
  greeting: string,
): Promise<{ sessionId: string; client: RoomClient }> {
  const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
  const started = await apiClient(rig.server.url, minted.body.token)(
    'POST',
    `/v1/agents/${agentId}/sessions`,
    {},
  );
  if (started.status !== 201) throw new Error(`session start: ${JSON.stringify(started.body)}`);
  const { session_id: sessionId, livekit } = started.body as {
    session_id: string;
    livekit: { url: string; token: string };
  };
  const client = await RoomClient.join(livekit.url, livekit.token);
  await client.waitUntil(
    () => client.transcripts().find((t) => t.role === 'agent' && t.text === greeting),
    90_000,
    'the greeting',
  );
  await client.waitUntil(
    () => client.agentStates.at(-1)?.state === 'listening',
    30_000,
    'the agent to listen',
  );
  return { sessionId, client };
}

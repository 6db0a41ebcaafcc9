import { FakeOpenAiChat } from '../../test/fakes/openai-chat.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../test/helpers/agents.ts';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { type LivekitServer, startLivekit } from '../../test/helpers/livekit.ts';
import { openTestDatabase, seedWorkspace } from '../../test/helpers/seed.ts';
import { type RunningServer, serviceEnv, startServer } from '../../test/helpers/server.ts';
import { freePort, startWorker, type WorkerProcess } from '../../test/helpers/worker.ts';

const SIGNING_SECRET = 'bench-voice-signing-secret-0123456789abcdef';

export interface VoiceRigOptions {
  /** The language-model fake's fixed delay before its first token. */
  llmFirstTokenDelayMs: number;
  /** What the fake answers every request it has no script for (its text deltas). */
  llmAnswer: string[];
  /** Embedded Whisper size (`WHISPER_MODEL`). */
  whisperModel: string;
  /** Its shortest encoder window in seconds (`WHISPER_MIN_WINDOW_S`). */
  whisperMinWindowS: number;
  /** More worker variables (a setting to measure: `STT_EARLY_START_PAUSE_MS=100`). */
  workerEnv?: Record<string, string>;
}

/** A started live session: where the user's client joins. */
export interface StartedSession {
  sessionId: string;
  url: string;
  token: string;
}

/**
 * Everything a live conversation runs on, as `npm start` runs it: a real livekit-server
 * (loopback), the compiled api (SQLite) whose `/v1/tts/stream` speaks the agent's replies
 * with the native voice, the compiled agent worker (Silero VAD, embedded Whisper in its
 * sidecar) and the OpenAI chat fake as the Agent's model, answering after a fixed delay.
 */
export class VoiceRig {
  private constructor(
    readonly livekit: LivekitServer,
    readonly llm: FakeOpenAiChat,
    readonly server: RunningServer,
    readonly worker: WorkerProcess,
    readonly database: TestDatabase,
    readonly api: ApiClient,
    readonly agentId: string,
  ) {}

  static async start(options: VoiceRigOptions): Promise<VoiceRig> {
    const database = await createTestDatabase('sqlite');
    const handle = await openTestDatabase(database);
    const seeded = await seedWorkspace(handle, { credits: 100_000_000 });
    await handle.close();
    const livekit = await startLivekit();
    const llm = await FakeOpenAiChat.start({
      defaults: { firstTokenDelayMs: options.llmFirstTokenDelayMs, text: options.llmAnswer },
    });
    const shared = {
      LIVEKIT_URL: livekit.url,
      LIVEKIT_API_KEY: livekit.apiKey,
      LIVEKIT_API_SECRET: livekit.apiSecret,
      AGENT_NAME: 'awp-agent-bench',
      TOKEN_SIGNING_SECRET: SIGNING_SECRET,
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: llm.apiKey ?? '',
      LOCAL_LLM: 'false',
      TTS_RATE_LIMIT_PER_MINUTE: '10000000',
      TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: '10000000',
    };
    const server = await startServer({ database, env: shared });
    const worker = await startWorker(
      serviceEnv(database, {
        ...shared,
        REDIS_PREFIX: server.env.REDIS_PREFIX ?? 'bench',
        AWP_API_URL: server.url,
        AWP_API_DEV_URL: server.devUrl,
        WORKER_HTTP_PORT: String(await freePort()),
        WORKER_IDLE_PROCESSES: '1',
        STT_PROVIDER: 'embedded',
        WHISPER_MODEL: options.whisperModel,
        WHISPER_MIN_WINDOW_S: String(options.whisperMinWindowS),
        ...options.workerEnv,
      }),
    );
    const api = apiClient(server.url, seeded.productionKey);
    const created = await api('POST', '/v1/agents', {
      slug: 'bench-voice',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'Ada',
          description: 'A patient assistant.',
          system_prompt: 'You are {{char}}. Be brief.',
          first_mes: 'Hello, I am {{char}}.',
        },
      },
    });
    if (created.status !== 201) throw new Error(`agent: ${JSON.stringify(created.body)}`);
    const agentId = created.body.id as string;
    const published = await api('POST', `/v1/agents/${agentId}/publish`);
    if (published.status !== 200) throw new Error(`publish: ${JSON.stringify(published.body)}`);
    return new VoiceRig(livekit, llm, server, worker, database, api, agentId);
  }

  /** Mints an Agent session token and starts a session with it. */
  async startSession(): Promise<StartedSession> {
    const minted = await this.api('POST', `/v1/agents/${this.agentId}/session-tokens`, {});
    const reply = await apiClient(this.server.url, minted.body.token as string)(
      'POST',
      `/v1/agents/${this.agentId}/sessions`,
    );
    if (reply.status !== 201) throw new Error(`session: ${JSON.stringify(reply.body)}`);
    return {
      sessionId: reply.body.session_id as string,
      url: reply.body.livekit.url as string,
      token: reply.body.livekit.token as string,
    };
  }

  async close(): Promise<void> {
    await this.worker.kill();
    await this.server.stop();
    await this.llm.close();
    await this.livekit.stop();
    await this.database.drop();
  }
}

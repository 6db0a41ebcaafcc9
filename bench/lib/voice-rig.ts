import { agentConfigShape } from '../../src/app/config/agents.ts';
import type { FakeOpenAiChat } from '../../test/fakes/openai-chat.ts';
import { apiClient, NATIVE_VOICE } from '../../test/helpers/agents.ts';
import { type RealtimeRig, startRealtimeRig } from '../../test/helpers/realtime-rig.ts';
import type { WorkerProcess } from '../../test/helpers/worker.ts';

export interface VoiceRigOptions {
  /** The language-model fake's fixed delay before its first token. */
  llmFirstTokenDelayMs: number;
  /** What the fake answers every request it has no script for (its text deltas). */
  llmAnswer?: string[];
  /** Embedded Whisper size (`WHISPER_MODEL`). */
  whisperModel: string;
  /** Its shortest encoder window in seconds (`WHISPER_MIN_WINDOW_S`). */
  whisperMinWindowS: number;
  /**
   * More of the worker's variables (its session slots, a setting to measure:
   * `STT_EARLY_START_PAUSE_MS=100`).
   */
  workerEnv?: Record<string, string>;
}

/** A started Agent session: where the user's client joins. */
export interface StartedSession {
  sessionId: string;
  url: string;
  token: string;
}

/**
 * Everything a live conversation runs on, as `npm start` runs it (the tests' realtime rig,
 * test/helpers/realtime-rig.ts): a real livekit-server (loopback), the compiled api (SQLite)
 * whose `/v1/tts/stream` speaks the agent's replies with the native voice, the compiled
 * agent worker (Silero VAD, embedded Whisper in its sidecar) and the OpenAI chat fake as the
 * Agent's model, answering after a fixed delay; one published Agent.
 */
export class VoiceRig {
  private constructor(
    private readonly rig: RealtimeRig,
    readonly agentId: string,
  ) {}

  get llm(): FakeOpenAiChat {
    return this.rig.llm;
  }

  get worker(): WorkerProcess {
    return this.rig.worker;
  }

  /** The api as the workspace's production key calls it. */
  get api(): RealtimeRig['api'] {
    return this.rig.api;
  }

  static async start(options: VoiceRigOptions): Promise<VoiceRig> {
    const rig = await startRealtimeRig({
      dialect: 'sqlite',
      agentName: 'awp-agent-bench',
      credits: 100_000_000,
      llm: {
        defaults: {
          firstTokenDelayMs: options.llmFirstTokenDelayMs,
          ...(options.llmAnswer ? { text: options.llmAnswer } : {}),
        },
      },
      env: {
        // A session start waits for a worker as in production (the test rig does not).
        AGENT_SESSION_WORKER_WAIT_MS: String(
          agentConfigShape.AGENT_SESSION_WORKER_WAIT_MS.parse(undefined),
        ),
        TTS_RATE_LIMIT_PER_MINUTE: '10000000',
        TTS_WORKSPACE_RATE_LIMIT_PER_MINUTE: '10000000',
      },
      stt: 'embedded',
      ...(options.workerEnv ? { workerEnv: options.workerEnv } : {}),
      whisper: {
        WHISPER_MODEL: options.whisperModel,
        WHISPER_MIN_WINDOW_S: String(options.whisperMinWindowS),
      },
    });
    try {
      const created = await rig.api('POST', '/v1/agents', {
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
      const published = await rig.api('POST', `/v1/agents/${agentId}/publish`);
      if (published.status !== 200) throw new Error(`publish: ${JSON.stringify(published.body)}`);
      return new VoiceRig(rig, agentId);
    } catch (error) {
      await rig.close();
      throw error;
    }
  }

  /** Mints an Agent session token and starts a session with it. */
  async startSession(): Promise<StartedSession> {
    const minted = await this.rig.api('POST', `/v1/agents/${this.agentId}/session-tokens`, {});
    const reply = await apiClient(this.rig.server.url, minted.body.token as string)(
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
    await this.rig.close();
  }
}

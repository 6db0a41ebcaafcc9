// The stack application-session tests run on, the realtime rig (test/fixtures/realtime.ts):
// a real livekit-server, the api (agent speech goes through its /v1/tts/stream), the compiled
// agent worker, the OpenAI chat fake as the Agent's model and the OpenAI transcription fake
// as its speech recognizer (what the user "said" is scripted, so the one audio turn is
// deterministic). Sessions start through the
// api's route, as a customer backend starts them. The callback deadline is
// shortened through APPLICATION_REQUEST_DEADLINE_MS so deadline tests finish quickly.

import { randomUUID } from 'node:crypto';
import {
  type ApplicationHandlers,
  type StartApplicationSessionInput,
  startApplicationSession,
} from '../../../backend-sdk/src/application/index.ts';
import type { ApplicationSpec, ApplicationTool } from '../../../src/application/types.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import type { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import type { FakeTranscriptions } from '../../fakes/openai-transcriptions.ts';
import {
  type RealtimeRig,
  type RealtimeRigOptions,
  realtimeTest,
} from '../../fixtures/realtime.ts';
import { NATIVE_VOICE } from '../../helpers/agents.ts';
import { TestApplicationBackend } from '../../helpers/application-backend.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import type { SeededWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import type { WorkerProcess } from '../../helpers/worker.ts';
import { SdkBackend } from './sdk-backend.ts';

const AGENT_NAME = 'awp-agent-application-e2e';

export interface ApplicationStack {
  database: TestDatabase;
  handle: DatabaseHandle;
  livekit: LivekitServer;
  llm: FakeOpenAiChat;
  stt: FakeTranscriptions;
  server: RunningServer;
  worker: WorkerProcess;
  ws: SeededWorkspace;
  agentId: string;
  deadlineMs: number;
  /**
   * Starts a session through the api and joins its end user and its backend (the backend
   * without the capability attribute when `advertise` is false).
   */
  open(spec: Partial<ApplicationSpec>, options?: { advertise?: boolean }): Promise<OpenSession>;
  /**
   * Starts a session with backend-sdk's `startApplicationSession`, joins its end user, then
   * its backend with `ApplicationConnection.join` (which waits for the capable worker).
   */
  openSdk(spec: Partial<ApplicationSpec>, handlers?: ApplicationHandlers): Promise<SdkSession>;
}

/** What a test needs of a started session. */
export interface StartedApplicationSession {
  sessionId: string;
  agentIdentity: string;
  backendIdentity: string;
  url: string;
  userToken: string;
  controlToken: string;
}

/** A declared tool with the spec's defaults spelled out. */
export function declaredTool(
  name: string,
  options: Partial<Omit<ApplicationTool, 'name'>> = {},
): ApplicationTool {
  return {
    name,
    description: options.description ?? `The ${name} tool.`,
    parameters: options.parameters ?? { type: 'object', properties: {} },
    cancellable: options.cancellable ?? false,
    onDuplicate: options.onDuplicate ?? 'allow',
    runReply: options.runReply ?? true,
  };
}

export interface OpenSession {
  started: StartedApplicationSession;
  user: RoomClient;
  backend: TestApplicationBackend;
  /** Leaves the room (user and backend). */
  leave(): Promise<void>;
}

export interface SdkSession {
  started: StartedApplicationSession;
  user: RoomClient;
  backend: SdkBackend;
  /**
   * A restarted backend: starts again with the same ids (a fresh control credential) and
   * joins as a new backend process with `handlers`.
   */
  restart(handlers: ApplicationHandlers): Promise<SdkBackend>;
  /** Leaves the room (user and every backend joined). */
  leave(): Promise<void>;
}

/** The realtime rig application sessions run on: the worker hears through the transcription fake. */
export function applicationRigOptions(deadlineMs: number): RealtimeRigOptions {
  return {
    dialect: 'postgres',
    agentName: AGENT_NAME,
    stt: 'transcriptions',
    workerEnv: {
      APPLICATION_REQUEST_DEADLINE_MS: String(deadlineMs),
      // On, as a deployment may set it: an application session still asks its backend
      // about a turn before any model call (callbacks.test.ts counts the model's requests).
      AGENT_PREEMPTIVE_GENERATION: 'true',
    },
  };
}

/**
 * The test API of an application-session test file: the realtime rig of
 * applicationRigOptions and, on it, `stack` (its Agent published), once per file.
 */
export function applicationTest(deadlineMs: number) {
  return realtimeTest
    .override('realtimeOptions', applicationRigOptions(deadlineMs))
    .extend('stack', { scope: 'file' }, ({ realtimeRig }) =>
      applicationStack(realtimeRig, deadlineMs),
    );
}

/** The application Agent published on `rig`, and the stack around it. */
export async function applicationStack(
  rig: RealtimeRig,
  deadlineMs: number,
): Promise<ApplicationStack> {
  const { database, handle, livekit, llm, server, worker, ws, api } = rig;
  const stt = rig.transcriptions;
  if (!stt) throw new Error('the application rig runs the transcription fake');
  const created = await api('POST', '/v1/agents', {
    slug: `app-desk-${Date.now()}`,
    voice_id: NATIVE_VOICE,
    llm_provider: 'openai',
    llm_model: 'gpt-4.1-mini',
    character_card: {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Card',
        description: 'CARD DESCRIPTION must not reach application sessions.',
        system_prompt: 'CARD PROMPT',
        first_mes: 'CARD GREETING',
      },
    },
  });
  if (created.status !== 201) throw new Error(`agent: ${JSON.stringify(created.body)}`);
  const agentId = created.body.id as string;
  const published = await api('POST', `/v1/agents/${agentId}/publish`);
  if (published.status !== 200) throw new Error(`publish: ${JSON.stringify(published.body)}`);

  /**
   * Until the session's job has ended it (at most 30 s): a job still running after its
   * users left may ask the model once more (a cancelled tool's turn), and would take the
   * answer the next test scripted.
   */
  const sessionOver = async (sessionId: string) => {
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const { body } = await api('GET', `/v1/agent-sessions/${sessionId}`);
      if (body.state === 'ended' || body.state === 'failed') return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  const stack: ApplicationStack = {
    database,
    handle,
    livekit,
    llm,
    stt,
    server,
    worker,
    ws,
    agentId,
    deadlineMs,
    open: async (spec, options = {}) => {
      const reply = await api('POST', `/v1/agents/${agentId}/application-sessions`, {
        agentId,
        chatSessionId: randomUUID(),
        requestId: randomUUID(),
        application: {
          instructions: spec.instructions ?? 'You are the booking desk. Be brief.',
          history: spec.history ?? [],
          tools: spec.tools ?? [],
        },
      });
      if (reply.status !== 201) throw new Error(`start: ${JSON.stringify(reply.body)}`);
      const { control, session } = reply.body as {
        control: { livekit_url: string; token: string; identity: string };
        session: { session_id: string; livekit: { url: string; token: string } };
      };
      const started: StartedApplicationSession = {
        sessionId: session.session_id,
        agentIdentity: `agent-${session.session_id}`,
        backendIdentity: control.identity,
        url: control.livekit_url,
        userToken: session.livekit.token,
        controlToken: control.token,
      };
      const backend = await TestApplicationBackend.join(started.url, started.controlToken, {
        advertise: options.advertise ?? true,
      });
      const user = await RoomClient.join(started.url, started.userToken);
      if (options.advertise ?? true) {
        await backend.waitUntil(() => backend.capableAgent(), 60_000, 'a capable Agent');
      }
      return {
        started,
        user,
        backend,
        leave: async () => {
          await backend.leave().catch(() => {});
          await user.leave().catch(() => {});
          await sessionOver(started.sessionId);
        },
      };
    },
    openSdk: async (spec, handlers) => {
      const http = { baseUrl: server.url, apiKey: ws.productionKey };
      const input: StartApplicationSessionInput = {
        agentId,
        chatSessionId: randomUUID(),
        requestId: randomUUID(),
        application: {
          instructions: spec.instructions ?? 'You are the booking desk. Be brief.',
          history: spec.history ?? [],
          tools: spec.tools ?? [],
        },
      };
      const { control, session } = await startApplicationSession(http, input);
      const started: StartedApplicationSession = {
        sessionId: session.session_id,
        agentIdentity: `agent-${session.session_id}`,
        backendIdentity: control.identity,
        url: session.livekit.url,
        userToken: session.livekit.token,
        controlToken: control.token,
      };
      // The user is in the room first: the worker's capability attribute (which the join
      // waits for) then means its session also listens to this user; text typed before the
      // framework links the user would be dropped.
      const user = await RoomClient.join(session.livekit.url, session.livekit.token);
      const backends: SdkBackend[] = [];
      try {
        backends.push(await SdkBackend.join(control, handlers));
      } catch (error) {
        await user.leave().catch(() => {});
        throw error;
      }
      return {
        started,
        user,
        backend: backends[0] as SdkBackend,
        restart: async (next) => {
          const again = await startApplicationSession(http, input);
          const backend = await SdkBackend.join(again.control, next);
          backends.push(backend);
          return backend;
        },
        leave: async () => {
          for (const backend of backends) await backend.leave().catch(() => {});
          await user.leave().catch(() => {});
        },
      };
    },
  };
  return stack;
}

/** The messages of the fake model's last request (or of request `index`). */
export function llmMessages(
  llm: FakeOpenAiChat,
  index = llm.requests.length - 1,
): { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[] {
  return (llm.requests[index]?.body as { messages?: never[] } | undefined)?.messages ?? [];
}

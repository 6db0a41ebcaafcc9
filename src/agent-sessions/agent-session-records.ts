import type { InputMode } from '@awp/protocol';
import type { PublishedAgent } from '../agents/agent-store.ts';
import type { CharacterCard } from '../agents/character-card.ts';
import type { Environment } from '../app/config.ts';
import type { ApplicationMessage, ApplicationSpec } from '../application/types.ts';
import type { AgentSessionState } from '../db/schema.ts';

/** Session overrides of the spec: legacy fields, or a complete card (never both). */
export type SessionOverrides =
  | { persona?: string | undefined; systemPrompt?: string | undefined }
  | { characterCard: CharacterCard };

/** Who the end user is and where, as the session start gave it. */
export interface SessionContext {
  userName?: string | undefined;
  timeZone?: string | undefined;
}

/** Everything the worker needs to run a session, as stored when it started. */
export interface AgentSessionRecord {
  id: string;
  agentId: string;
  workspaceId: string;
  environment: Environment;
  apiKeyId: string;
  endUserId: string | null;
  room: string;
  state: AgentSessionState;
  endReason: string | null;
  snapshot: PublishedAgent;
  overrides: SessionOverrides | null;
  sessionContext: SessionContext | null;
  createdAt: string;
  expiresAt: string;
  startedAt: string | null;
  endedAt: string | null;
  /** `managed`, or `application` when a backend owns instructions, history and tools. */
  kind: 'managed' | 'application';
  /** Set on application sessions only. */
  application: ApplicationSession | null;
  /**
   * The input mode the session's job last set (the client's `awp.input_mode` or push-to-talk
   * start); null before any. A job taking the session over starts in it.
   */
  inputMode: InputMode | null;
  /**
   * The application backend's `update_context` in effect (application sessions); null
   * before any. A job taking the session over starts with it.
   */
  contextUpdate: ContextUpdate | null;
}

/**
 * What an application backend's `update_context` commands made of the session's context,
 * as a job replays it: the instructions replace the start's, the messages are appended.
 */
export interface ContextUpdate {
  /** The instructions the backend last set; null: the start's still apply. */
  instructions: string | null;
  /**
   * Every message the backend appended, in order, each with the number of transcript turns
   * the session had stored when it arrived (it follows them in the model's context).
   */
  messages: (ApplicationMessage & { afterTurns: number })[];
}

/** The backend-owned part of an application session. */
export interface ApplicationSession {
  spec: ApplicationSpec;
  /** The one LiveKit identity allowed to send commands and results. */
  backendIdentity: string;
  chatSessionId: string;
  startRequestId: string;
}

/** Measures of one session; the worker adds to them as it goes. */
export interface AgentSessionUsage {
  sessionMs: number;
  llmInputTokens: number;
  llmOutputTokens: number;
  llmMillicredits: number;
  ttsChars: number;
  sttMs: number;
  /** Web searches the Agent made (their cost is part of the session's charge). */
  webSearches: number;
}

/**
 * What the worker adds to a session's stored measures as it goes: the usage, and the web
 * searches it made (count and cost; the cost is part of the session's one charge).
 */
export type AgentSessionUsageDelta = Partial<AgentSessionUsage & { webSearchMillicredits: number }>;

/** What a session's jobs stored of what its one charge covers beyond its time. */
export interface StoredSessionUsage {
  sttMs: number;
  llmMillicredits: number;
  webSearches: number;
  webSearchMillicredits: number;
}

/** The 50th and 95th percentiles (nearest rank) and the largest of one measure, in ms. */
export interface LatencyStats {
  p50: number;
  p95: number;
  max: number;
}

/**
 * How fast the agent answered the user's spoken turns, as the worker measured them: each
 * measure over the turns it was taken for, null when none.
 */
export interface TurnLatencySummary {
  /** Spoken user turns the agent answered with audio. */
  turns: number;
  /** The end of the user's speech (VAD) to the agent's first audio frame. */
  endOfSpeechToFirstAudioMs: LatencyStats;
  /** The end of the user's speech to the final transcript. */
  transcriptionDelayMs: LatencyStats | null;
  /** The language model's first token, from the request. */
  llmFirstTokenMs: LatencyStats | null;
  /** Speech synthesis's first audio, from the first text. */
  ttsFirstAudioMs: LatencyStats | null;
}

/** What `GET /v1/agent-sessions/{id}` reports. */
export interface AgentSessionReport {
  record: AgentSessionRecord;
  transcriptCount: number;
  usage: AgentSessionUsage;
  /** Null until the agent answered a spoken turn. */
  latency: TurnLatencySummary | null;
  /** The session's recording, when its Agent records sessions and the worker stored one. */
  recording: { durationMs: number } | null;
  /** Charged so far: session time, LLM and STT debited at the end, plus the TTS ledger. */
  chargedMillicredits: number;
}

/** One finalized turn of a session's transcript. */
export interface TranscriptTurn {
  /** Durable id minted by the worker; a retried insert with the same id is a no-op. */
  id: string;
  sessionId: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: boolean;
}

/** The record of an `agent_sessions` row (JSON columns parsed). */
export function toRecord(row: {
  id: string;
  agent_id: string;
  workspace_id: string;
  environment: Environment;
  api_key_id: string;
  end_user_id: string | null;
  room: string;
  state: AgentSessionState;
  end_reason: string | null;
  snapshot: string;
  overrides: string | null;
  session_context: string | null;
  created_at: string;
  expires_at: string;
  started_at: string | null;
  ended_at: string | null;
  kind: 'managed' | 'application';
  application: string | null;
  backend_identity: string | null;
  chat_session_id: string | null;
  start_request_id: string | null;
  input_mode: InputMode | null;
  context_update: string | null;
}): AgentSessionRecord {
  return {
    id: row.id,
    agentId: row.agent_id,
    workspaceId: row.workspace_id,
    environment: row.environment,
    apiKeyId: row.api_key_id,
    endUserId: row.end_user_id,
    room: row.room,
    state: row.state,
    endReason: row.end_reason,
    snapshot: JSON.parse(row.snapshot) as PublishedAgent,
    overrides: row.overrides ? (JSON.parse(row.overrides) as SessionOverrides) : null,
    sessionContext: row.session_context
      ? (JSON.parse(row.session_context) as SessionContext)
      : null,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    kind: row.kind,
    application:
      row.kind === 'application' && row.application
        ? {
            spec: JSON.parse(row.application) as ApplicationSpec,
            backendIdentity: row.backend_identity ?? '',
            chatSessionId: row.chat_session_id ?? '',
            startRequestId: row.start_request_id ?? '',
          }
        : null,
    inputMode: row.input_mode,
    contextUpdate: row.context_update ? (JSON.parse(row.context_update) as ContextUpdate) : null,
  };
}

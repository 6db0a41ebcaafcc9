import { type AgentSessionRecord, AgentSessions } from '../agent-sessions/agent-sessions.ts';
import { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import type { ToolBilling } from '../agents/capabilities/agent-tool.ts';
import { createAgentToolbox } from '../agents/capabilities/registry.ts';
import type { PreparedTools } from '../agents/capabilities/toolbox.ts';
import { type Config, tokenSigningSecret } from '../app/config.ts';
import { StreamTokens } from '../auth/stream-tokens.ts';
import { type DatabaseHandle, openDatabase } from '../db/connect.ts';
import { type LlmCatalog, llmCatalogFromConfig } from '../llm/registry.ts';
import type { Logger } from '../observability/logger.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { openAudioStores } from '../storage/stores.ts';
import { sampleLanguages } from '../voices/cloning/sample-languages.ts';

/**
 * What the worker writes of the session it runs: its state, transcript, usage (web searches
 * included), latency, input mode and an application backend's context update.
 */
export type WorkerSessionStore = Pick<
  AgentSessions,
  | 'byId'
  | 'markActive'
  | 'renewLease'
  | 'releaseLease'
  | 'usageSoFar'
  | 'turns'
  | 'end'
  | 'addUsage'
  | 'addTurn'
  | 'recordLatency'
  | 'recordInputMode'
  | 'recordContextUpdate'
>;

/**
 * The api's services one Agent session's job uses, behind one object: the worker asks for
 * what it needs (its session, a speech credential, the model catalog, the Agent's
 * capabilities, a place for the recording) and never learns how they are stored. The
 * database connection, the secrets box, the stream-token key and the audio store stay in
 * here, built from the same configuration the api reads.
 */
export class WorkerApi {
  readonly sessions: WorkerSessionStore;
  readonly #streamTokens: StreamTokens;

  private constructor(
    readonly config: Config,
    private readonly handle: DatabaseHandle,
  ) {
    this.sessions = new AgentSessions(handle.db, {
      heartbeatTimeoutMs: config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
    });
    this.#streamTokens = new StreamTokens(tokenSigningSecret(config));
  }

  /** Opens the services for one job (its own small database pool); `close` releases them. */
  static async open(config: Config): Promise<WorkerApi> {
    const handle = await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      maxConnections: 2,
    });
    return new WorkerApi(config, handle);
  }

  /**
   * A short-lived `agent_speech` token for the session's speech over the api's
   * `/v1/tts/stream`: the Agents product's own credential (charged to the session, outside
   * the key's synthesis limits).
   */
  async agentSpeechToken(record: AgentSessionRecord): Promise<string> {
    const minted = await this.#streamTokens.mint(
      {
        keyId: record.apiKeyId,
        workspaceId: record.workspaceId,
        environment: record.environment,
        agentSessionId: record.id,
      },
      Date.now(),
      'agent_speech',
    );
    return minted.token;
  }

  /** The configured language models and their prices, as text conversations see them. */
  languageModels(log: Logger): LlmCatalog {
    return llmCatalogFromConfig(this.config, log);
  }

  /**
   * The published Agent's capabilities (memory, documents, calendar, web search) for the
   * session, prepared as in text conversations.
   */
  async prepareCapabilities(
    record: AgentSessionRecord,
    log: Logger,
    billing?: ToolBilling,
  ): Promise<PreparedTools> {
    const { config } = this;
    const toolbox = createAgentToolbox({
      config,
      db: this.handle.db,
      secretBox: SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR }),
      logger: log,
    });
    return toolbox.prepare(record.snapshot, {
      workspaceId: record.workspaceId,
      environment: record.environment,
      agentId: record.snapshot.agentId,
      endUserId: record.endUserId,
      timeZone: record.sessionContext?.timeZone ?? null,
      origin: { kind: 'live_session', sessionId: record.id },
      ...(billing ? { billing } : {}),
    });
  }

  /** A workspace's credit balance now, in millicredits (0 for a workspace that is gone). */
  async creditBalance(workspaceId: string): Promise<number> {
    const row = await this.handle.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return Number(row?.credit_balance_millicredits ?? 0);
  }

  /** The languages of a workspace voice's recordings (none for other voices). */
  voiceSampleLanguages(workspaceId: string, voiceId: string): Promise<string[]> {
    return sampleLanguages(this.handle.db, workspaceId, voiceId);
  }

  /**
   * Moves a finished recording into the deployment's audio store and names it on the
   * session; its duration, 0 when nothing was kept (see `SessionRecordings.save`).
   */
  saveRecording(
    session: { id: string; workspaceId: string },
    file: string,
  ): Promise<{ durationMs: number }> {
    return new SessionRecordings(this.handle.db, openAudioStores(this.config).audio).save(
      session,
      file,
    );
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

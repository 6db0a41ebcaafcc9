import type { InputMode } from '@awp/protocol';
import type { Kysely } from 'kysely';
import type { PublishedAgent } from '../agents/agent-store.ts';
import type { ApplicationMessage } from '../application/types.ts';
import { debitUpTo, lockWorkspaceRow } from '../billing/balance.ts';
import { type AgentSessionPrices, agentSessionCostMillicredits } from '../billing/pricing.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import {
  type AgentSessionRecord,
  type AgentSessionReport,
  type AgentSessionUsageDelta,
  type ApplicationSession,
  type ContextUpdate,
  type SessionContext,
  type SessionOverrides,
  type StoredSessionUsage,
  type TranscriptTurn,
  type TurnLatencySummary,
  toRecord,
} from './agent-session-records.ts';
import { emitSessionEnded, emitSessionStarted } from './session-events.ts';
import { timedTranscript } from './session-history.ts';
import { LIVE_STATES, renewSessionLease } from './session-lease.ts';
import { readSessionReport } from './session-report.ts';

export type {
  AgentSessionRecord,
  AgentSessionReport,
  AgentSessionUsage,
  AgentSessionUsageDelta,
  ApplicationSession,
  ContextUpdate,
  SessionContext,
  SessionOverrides,
  StoredSessionUsage,
  TranscriptTurn,
  TurnLatencySummary,
} from './agent-session-records.ts';

import { inScope, type TenantScope } from '../db/tenant-scope.ts';

export { agentSessionLedgerId } from './session-report.ts';

/**
 * Agent sessions in the shared database: the api creates and reports them, the
 * worker runs them (state, heartbeat, transcript, usage). A session whose worker stops
 * reporting is failed (`worker_lost`) the next time anyone reads it, or by the jobs
 * process's sweep ({@link AgentSessions.failSilent}), whichever comes first.
 */
export class AgentSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: {
      /** Silence after which a running session counts as lost. */
      heartbeatTimeoutMs: number;
      now?: () => number;
    },
  ) {}

  #now(): Date {
    return new Date(this.options.now?.() ?? Date.now());
  }

  /**
   * A running session is lost when its last heartbeat is older than `heartbeat`, or, before
   * its first one, when it was created before `created`: a worker gets twice as long to
   * take a new job (process start, model load).
   */
  #silentBefore(): { heartbeat: string; created: string } {
    const now = this.#now().getTime();
    const timeoutMs = this.options.heartbeatTimeoutMs;
    return {
      heartbeat: new Date(now - timeoutMs).toISOString(),
      created: new Date(now - 2 * timeoutMs).toISOString(),
    };
  }

  async create(input: {
    id: string;
    snapshot: PublishedAgent;
    apiKeyId: string;
    endUserId: string | undefined;
    room: string;
    overrides: SessionOverrides | undefined;
    sessionContext: SessionContext | undefined;
    expiresAt: Date;
    /** Makes it an application session. */
    application?: ApplicationSession;
    /**
     * Sessions of the workspace that may run at once, this one included (0: no limit);
     * beyond it `429 rate_limited` and nothing is created.
     */
    maxRunningPerWorkspace?: number;
  }): Promise<void> {
    const limit = input.maxRunningPerWorkspace ?? 0;
    if (limit === 0) {
      await this.#insert(this.db, input);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      // The workspace row's lock orders concurrent starts, so the count is exact.
      await lockWorkspaceRow(trx, input.snapshot.workspaceId);
      const running = await this.#running(trx, input.snapshot.workspaceId);
      if (running >= limit) {
        throw new ApiError(
          'rate_limited',
          `The workspace already runs ${running} live sessions (at most ${limit} at once); retry when one ends.`,
          { retryAfterSeconds: 5 },
        );
      }
      await this.#insert(trx, input);
    });
  }

  /** Sessions of the workspace still running, those whose worker went silent left out. */
  async #running(db: Kysely<Database>, workspaceId: string): Promise<number> {
    const silent = this.#silentBefore();
    const row = await db
      .selectFrom('agent_sessions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('state', 'in', LIVE_STATES)
      .where((eb) =>
        eb.or([
          eb.and([eb('heartbeat_at', 'is not', null), eb('heartbeat_at', '>=', silent.heartbeat)]),
          eb.and([eb('heartbeat_at', 'is', null), eb('created_at', '>=', silent.created)]),
        ]),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Whether the workspace's session `id` is still running (its agent may speak). */
  async runs(workspaceId: string, id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .select('id')
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('state', 'in', LIVE_STATES)
      .executeTakeFirst();
    return row !== undefined;
  }

  async #insert(
    db: Kysely<Database>,
    input: Omit<Parameters<AgentSessions['create']>[0], 'maxRunningPerWorkspace'>,
  ): Promise<void> {
    await db
      .insertInto('agent_sessions')
      .values({
        id: input.id,
        agent_id: input.snapshot.agentId,
        workspace_id: input.snapshot.workspaceId,
        environment: input.snapshot.environment,
        api_key_id: input.apiKeyId,
        end_user_id: input.endUserId ?? null,
        publication_id: input.snapshot.publication.id,
        snapshot: JSON.stringify(input.snapshot),
        overrides: input.overrides ? JSON.stringify(input.overrides) : null,
        session_context: input.sessionContext ? JSON.stringify(input.sessionContext) : null,
        room: input.room,
        state: 'connecting',
        created_at: this.#now().toISOString(),
        expires_at: input.expiresAt.toISOString(),
        ...(input.application
          ? {
              kind: 'application' as const,
              application: JSON.stringify(input.application.spec),
              backend_identity: input.application.backendIdentity,
              chat_session_id: input.application.chatSessionId,
              start_request_id: input.application.startRequestId,
            }
          : {}),
      })
      .execute();
  }

  /**
   * The application session a backend already started with this `chatSessionId` and
   * `requestId` in the workspace (an idempotent start), or undefined.
   */
  async applicationStart(
    workspaceId: string,
    chatSessionId: string,
    startRequestId: string,
  ): Promise<AgentSessionRecord | undefined> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('chat_session_id', '=', chatSessionId)
      .where('start_request_id', '=', startRequestId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** The session by id alone (the worker); undefined when unknown. */
  async byId(id: string): Promise<AgentSessionRecord | undefined> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /**
   * The report of a session of the scope, failing it first when its worker went silent.
   * Undefined when the session is unknown here.
   */
  async report(scope: TenantScope, id: string): Promise<AgentSessionReport | undefined> {
    const found = await this.db
      .selectFrom('agent_sessions')
      .select(['state', 'heartbeat_at', 'created_at'])
      .where('id', '=', id)
      .$call(inScope(scope))
      .executeTakeFirst();
    if (!found) return undefined;
    if (LIVE_STATES.includes(found.state)) {
      const silent = this.#silentBefore();
      if (
        found.heartbeat_at !== null
          ? found.heartbeat_at < silent.heartbeat
          : found.created_at < silent.created
      ) {
        await this.end(id, 'failed', 'worker_lost');
      }
    }
    return readSessionReport(this.db, scope.workspaceId, id);
  }

  /**
   * Fails (`worker_lost`) up to `limit` running sessions whose worker went silent, oldest
   * first, by the rule `report()` applies on read; each gets its `agent_session.ended`
   * event without anyone reading it. Returns how many it failed.
   */
  async failSilent(limit = 100): Promise<number> {
    const silent = this.#silentBefore();
    const rows = await this.db
      .selectFrom('agent_sessions')
      .select('id')
      .where('state', 'in', LIVE_STATES)
      .where((eb) =>
        eb.or([
          eb.and([eb('heartbeat_at', 'is not', null), eb('heartbeat_at', '<', silent.heartbeat)]),
          eb.and([eb('heartbeat_at', 'is', null), eb('created_at', '<', silent.created)]),
        ]),
      )
      .orderBy('created_at')
      .limit(limit)
      .execute();
    let failed = 0;
    for (const row of rows) if (await this.end(row.id, 'failed', 'worker_lost')) failed++;
    return failed;
  }

  /**
   * The worker took the session: `active`, its first heartbeat and, in the same
   * transaction, its `agent_session.started` webhook event. False once it ended.
   */
  async markActive(id: string): Promise<boolean> {
    const now = this.#now().toISOString();
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('agent_sessions')
        .set({ state: 'active', started_at: now, heartbeat_at: now })
        .where('id', '=', id)
        .where('state', '=', 'connecting')
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await emitSessionStarted(trx, id);
      return true;
    });
  }

  /** The worker is alive and running the session. */
  async heartbeat(id: string): Promise<void> {
    await this.db
      .updateTable('agent_sessions')
      .set({ heartbeat_at: this.#now().toISOString() })
      .where('id', '=', id)
      .where('state', 'in', LIVE_STATES)
      .execute();
  }

  /**
   * The job of generation `epoch` still runs the session: its lease is renewed. False when
   * the session ended or was handed to a newer job (the caller must leave the room).
   */
  renewLease(id: string, epoch: number): Promise<boolean> {
    return renewSessionLease(this.db, id, epoch, this.#now());
  }

  /**
   * The job of generation `epoch` gives the session up (its worker is shutting down): the
   * lease is marked lapsed `lapsedForMs` ago and open to a hand-over, so the api's next
   * sweep hands it to a new job. False when the session ended or is another job's.
   */
  async releaseLease(id: string, epoch: number, lapsedForMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('agent_sessions')
      .set({
        heartbeat_at: new Date(this.#now().getTime() - lapsedForMs).toISOString(),
        handed_over_at: null,
      })
      .where('id', '=', id)
      .where('state', '=', 'active')
      .where('job_epoch', '=', epoch)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Running sessions whose job's lease lapsed (no renewal since `lapsedBefore`) and that
   * were not handed over since (one hand-over per lapse: a session no new job takes fails
   * at the heartbeat timeout), with the epoch a hand-over must claim; at most `limit`,
   * oldest lease first.
   */
  async lapsedLeases(
    lapsedBefore: Date,
    limit: number,
  ): Promise<{ id: string; epoch: number; startedAt: string | null }[]> {
    const rows = await this.db
      .selectFrom('agent_sessions')
      .select(['id', 'job_epoch', 'started_at'])
      .where('state', '=', 'active')
      .where('heartbeat_at', '<', lapsedBefore.toISOString())
      .where((eb) =>
        eb.or([
          eb('handed_over_at', 'is', null),
          eb('handed_over_at', '<', eb.ref('heartbeat_at')),
        ]),
      )
      .orderBy('heartbeat_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      epoch: Number(row.job_epoch),
      startedAt: row.started_at,
    }));
  }

  /**
   * Claims the hand-over of a session whose lease lapsed at `epoch`: the epoch goes up by
   * one. Only one claim of an epoch wins (several api hosts may try); false when another
   * did, or the session ended. The lease is not renewed: the new job renews it when it
   * takes the session, and a session no job takes fails at the heartbeat timeout.
   */
  async claimHandover(id: string, epoch: number): Promise<boolean> {
    const result = await this.db
      .updateTable('agent_sessions')
      .set({ job_epoch: epoch + 1, handed_over_at: this.#now().toISOString() })
      .where('id', '=', id)
      .where('state', '=', 'active')
      .where('job_epoch', '=', epoch)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Ends a running session whose job was lost while no end user is left in its room (the
   * hand-over sweep's alternative to a new job), charged what the lost job's lease covered:
   * the time from its start (`started_at`) to the lease's last renewal (`heartbeat_at`),
   * plus the speech to text, model and web-search cost its jobs stored, at `prices`, once
   * (as a job's end does). Conditional on `epoch`, the lapsed job's: false when the session ended or
   * was handed over meanwhile.
   */
  async endUnattended(
    id: string,
    epoch: number,
    reason: string,
    prices: AgentSessionPrices,
  ): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .select(['started_at', 'heartbeat_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return false;
    const sessionMs =
      row.started_at && row.heartbeat_at
        ? Math.max(0, Date.parse(row.heartbeat_at) - Date.parse(row.started_at))
        : 0;
    const stored = await this.usageSoFar(id);
    const millicredits = agentSessionCostMillicredits(
      {
        sessionMs,
        sttMs: stored.sttMs,
        llmMillicredits: stored.llmMillicredits,
        webSearchMillicredits: stored.webSearchMillicredits,
      },
      prices,
    );
    return this.end(id, 'ended', reason, { sessionMs, millicredits }, epoch);
  }

  /**
   * What the session's jobs measured so far beyond its time (a resumed job bills the whole
   * session): transcribed audio, model cost and the web searches made.
   */
  async usageSoFar(id: string): Promise<StoredSessionUsage> {
    const row = await this.db
      .selectFrom('agent_sessions')
      .select(['stt_ms', 'llm_millicredits', 'web_searches', 'web_search_millicredits'])
      .where('id', '=', id)
      .executeTakeFirst();
    return {
      sttMs: Number(row?.stt_ms ?? 0),
      llmMillicredits: Number(row?.llm_millicredits ?? 0),
      webSearches: Number(row?.web_searches ?? 0),
      webSearchMillicredits: Number(row?.web_search_millicredits ?? 0),
    };
  }

  /** Persists one finalized turn; the same id twice stores it once. */
  async addTurn(turn: TranscriptTurn): Promise<void> {
    await this.db
      .insertInto('agent_session_messages')
      .values({
        id: turn.id,
        session_id: turn.sessionId,
        role: turn.role,
        text: turn.text,
        interrupted: turn.interrupted ? 1 : 0,
        created_at: this.#now().toISOString(),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /** The persisted turns, oldest first. */
  async turns(sessionId: string): Promise<TranscriptTurn[]> {
    const turns = await timedTranscript(this.db, sessionId);
    return turns.map(({ createdAt: _, ...turn }) => ({ ...turn, sessionId }));
  }

  /**
   * The job of generation `epoch` switched the session's input mode: stored for a job that
   * takes the session over (it starts in it, {@link AgentSessionRecord.inputMode}). False
   * when the session ended or is another job's.
   */
  async recordInputMode(id: string, epoch: number, mode: InputMode): Promise<boolean> {
    const result = await this.db
      .updateTable('agent_sessions')
      .set({ input_mode: mode })
      .where('id', '=', id)
      .where('state', 'in', LIVE_STATES)
      .where('job_epoch', '=', epoch)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The job of generation `epoch` applied an application backend's `update_context`: it is
   * merged into the session's stored context update as the command works (`instructions`
   * replace the last ones, `messages` are appended, each after the transcript turns stored
   * by now), for a job that takes the session over ({@link AgentSessionRecord.contextUpdate}).
   * False when the session ended or is another job's.
   */
  async recordContextUpdate(
    id: string,
    epoch: number,
    update: { instructions?: string | undefined; messages?: ApplicationMessage[] | undefined },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // A write of the row first: it holds the row (PostgreSQL) or the database (SQLite)
      // until the merge is written, so two updates never merge into the same stored one.
      const row = await trx
        .updateTable('agent_sessions')
        .set((eb) => ({ context_update: eb.ref('context_update') }))
        .where('id', '=', id)
        .where('state', 'in', LIVE_STATES)
        .where('job_epoch', '=', epoch)
        .returning('context_update')
        .executeTakeFirst();
      if (!row) return false;
      const turns = await trx
        .selectFrom('agent_session_messages')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('session_id', '=', id)
        .executeTakeFirstOrThrow();
      const stored: ContextUpdate = row.context_update
        ? (JSON.parse(row.context_update) as ContextUpdate)
        : { instructions: null, messages: [] };
      const merged: ContextUpdate = {
        instructions: update.instructions ?? stored.instructions,
        messages: [
          ...stored.messages,
          ...(update.messages ?? []).map((message) => ({
            role: message.role,
            content: message.content,
            afterTurns: Number(turns.n),
          })),
        ],
      };
      await trx
        .updateTable('agent_sessions')
        .set({ context_update: JSON.stringify(merged) })
        .where('id', '=', id)
        .execute();
      return true;
    });
  }

  /** Replaces the session's voice latency summary with the worker's newest. */
  async recordLatency(id: string, latency: TurnLatencySummary): Promise<void> {
    await this.db
      .updateTable('agent_sessions')
      .set({ latency: JSON.stringify(latency) })
      .where('id', '=', id)
      .execute();
  }

  /** Adds measured usage (web searches made included) to the session's totals. */
  async addUsage(id: string, delta: AgentSessionUsageDelta): Promise<void> {
    await this.db
      .updateTable('agent_sessions')
      .set((eb) => ({
        llm_input_tokens: eb('llm_input_tokens', '+', delta.llmInputTokens ?? 0),
        llm_output_tokens: eb('llm_output_tokens', '+', delta.llmOutputTokens ?? 0),
        llm_millicredits: eb('llm_millicredits', '+', delta.llmMillicredits ?? 0),
        tts_chars: eb('tts_chars', '+', delta.ttsChars ?? 0),
        stt_ms: eb('stt_ms', '+', delta.sttMs ?? 0),
        web_searches: eb('web_searches', '+', delta.webSearches ?? 0),
        web_search_millicredits: eb(
          'web_search_millicredits',
          '+',
          delta.webSearchMillicredits ?? 0,
        ),
      }))
      .where('id', '=', id)
      .execute();
  }

  /**
   * Frees the `requestId` of an application start that was undone: the start never ran, so
   * the backend's retry of its retryable refusal with the same `chatSessionId` and
   * `requestId` starts a new session instead of meeting the failed one.
   */
  async releaseStartRequest(id: string): Promise<void> {
    await this.db
      .updateTable('agent_sessions')
      .set({ start_request_id: null })
      .where('id', '=', id)
      .where('state', '=', 'failed')
      .execute();
  }

  /**
   * Ends a running session (`ended` or `failed`) once; later calls change nothing. With
   * `charge`, records the session time and debits what the session cost beyond the TTS
   * ledger, as much as the balance covers (never below zero); `charged_millicredits` is
   * what was debited, so balance, charges and open reservations still add up to the
   * grants. The `agent_session.ended` webhook event commits with it. Returns false when it
   * had already ended.
   */
  async end(
    id: string,
    state: 'ended' | 'failed',
    reason: string,
    charge?: { sessionMs: number; millicredits: number },
    /** The job's epoch: a job the session was handed away from ends nothing. */
    epoch?: number,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('agent_sessions')
        .set({
          state,
          end_reason: reason,
          ended_at: this.#now().toISOString(),
          ...(charge ? { session_ms: charge.sessionMs } : {}),
        })
        .where('id', '=', id)
        .where('state', 'in', LIVE_STATES)
        .$if(epoch !== undefined, (qb) => qb.where('job_epoch', '=', epoch ?? 0))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      if (charge && charge.millicredits > 0) {
        const row = await trx
          .selectFrom('agent_sessions')
          .select('workspace_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const debited = await debitUpTo(trx, row.workspace_id, charge.millicredits);
        await trx
          .updateTable('agent_sessions')
          .set({ charged_millicredits: debited })
          .where('id', '=', id)
          .execute();
      }
      await emitSessionEnded(trx, id);
      return true;
    });
  }
}

import { type Kysely, sql, type Transaction } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { Database, LlmRequestStatus } from '../db/schema.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import type { LlmModelInfo, LlmUsage } from '../llm/provider.ts';
import { closeRowsOfDeadProcesses } from './abandoned-rows.ts';
import { creditBalance, debitBalance } from './balance.ts';
import { llmCostMillicredits } from './pricing.ts';

type Trx = Transaction<Database>;

export interface LlmLedgerStart {
  requestId: string;
  auditId: string;
  workspaceId: string;
  environment: Environment;
  apiKeyId: string | null;
  /** What makes the call (`messages`). */
  source: string;
  /** Null for calls of no Agent (the translation preview). */
  agentId: string | null;
  publicationId: string | null;
  /** The conversation of the turn; `conversationIsNew` when `write` creates it. */
  conversationId: string | null;
  conversationIsNew: boolean;
  userMessageId: string | null;
  provider: string;
  model: Pick<LlmModelInfo, 'name' | 'inputMillicreditsPer1M' | 'outputMillicreditsPer1M'>;
  /** Credit held for the call: an upper bound of its cost. */
  reserveMillicredits: number;
}

/** What a settled call cost. */
export interface LlmCharge {
  /** Debited from the workspace, in millicredits. */
  chargedMillicredits: number;
  /** The exact cost of the usage; above `charged` only when the balance could not cover it. */
  costMillicredits: number;
}

/** Tool calls a turn is charged for beside its tokens (web searches). */
export interface LlmToolCharges {
  webSearches: number;
  webSearchMillicredits: number;
}

const NO_TOOL_CHARGES: LlmToolCharges = { webSearches: 0, webSearchMillicredits: 0 };

/** Ends `reserveMore`'s transaction when nothing may be held. */
class NotHeld extends Error {}

/** Thrown by `start` when the conversation already has a turn running. */
export class TurnInProgressError extends ApiError {
  constructor() {
    super('conflict', 'Another message of this conversation is being answered; retry shortly.', {
      retryable: true,
    });
  }
}

/**
 * The language-model ledger: one `llm_requests` row per billed turn: one model call, or
 * the calls of a turn whose model called tools, each holding more credit before it
 * (`reserveMore`) and settled together with their summed usage. The row is
 * written with its credit reserved in one transaction before the first call (together with
 * whatever the caller writes, such as the user's message); the end settles the exact cost
 * of the usage and returns the rest. Debits are conditional updates, so the balance never
 * goes negative; every end is a conditional status change, so a row is settled once even
 * when a sweep of abandoned rows runs at the same time.
 */
export class LlmLedger {
  /** Rows created after this moment belong to this process's life. */
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly instanceId: string,
  ) {}

  /**
   * Opens the row and reserves credit, running `write` in the same transaction. Throws
   * `insufficient_credit` (leaving a failed row) or `TurnInProgressError`.
   */
  async start(entry: LlmLedgerStart, write?: (trx: Trx) => Promise<void>): Promise<void> {
    const now = new Date().toISOString();
    const row = {
      request_id: entry.requestId,
      audit_id: entry.auditId,
      workspace_id: entry.workspaceId,
      environment: entry.environment,
      api_key_id: entry.apiKeyId,
      source: entry.source,
      agent_id: entry.agentId,
      publication_id: entry.publicationId,
      conversation_id: entry.conversationId,
      user_message_id: entry.userMessageId,
      assistant_message_id: null,
      llm_provider: entry.provider,
      llm_model: entry.model.name,
      input_price_millicredits_per_1m: entry.model.inputMillicreditsPer1M,
      output_price_millicredits_per_1m: entry.model.outputMillicreditsPer1M,
      reserved_millicredits: entry.reserveMillicredits,
      status: 'started' as const,
      error_code: null,
      instance_id: this.instanceId,
      created_at: now,
      finished_at: null,
    };
    let reserved: boolean;
    try {
      reserved = await this.db.transaction().execute(async (trx) => {
        if (!(await debitBalance(trx, entry.workspaceId, entry.reserveMillicredits))) return false;
        // The row goes first: the one-open-turn index refuses a second turn before any
        // message of it is written.
        await trx.insertInto('llm_requests').values(row).execute();
        await write?.(trx);
        return true;
      });
    } catch (error) {
      // PostgreSQL names the index; SQLite names its column.
      if (violatesUnique(error, ['one_open_turn', 'llm_requests.conversation_id'])) {
        throw new TurnInProgressError();
      }
      throw error;
    }
    if (!reserved) {
      await this.db
        .insertInto('llm_requests')
        .values({
          ...row,
          conversation_id: entry.conversationIsNew ? null : entry.conversationId,
          user_message_id: null,
          reserved_millicredits: 0,
          status: 'failed',
          error_code: 'insufficient_credit',
          finished_at: now,
        })
        .execute();
      throw new ApiError(
        'insufficient_credit',
        'The workspace credit cannot cover this message at the model price.',
      );
    }
  }

  /**
   * Holds `millicredits` more on a started row: the next model call of a turn whose model
   * called tools. The debit is conditional, so the balance never goes negative. False (and
   * nothing held) when the balance cannot cover it or the row is no longer started. A row
   * is held, settled and closed by the one turn that opened it, one step after another.
   */
  async reserveMore(
    requestId: string,
    workspaceId: string,
    millicredits: number,
  ): Promise<boolean> {
    if (millicredits <= 0) return true;
    try {
      await this.db.transaction().execute(async (trx) => {
        if (!(await debitBalance(trx, workspaceId, millicredits))) throw new NotHeld();
        const result = await trx
          .updateTable('llm_requests')
          .set({ reserved_millicredits: sql`reserved_millicredits + ${millicredits}` })
          .where('request_id', '=', requestId)
          .where('status', '=', 'started')
          .executeTakeFirst();
        // Rolls the debit back with the transaction.
        if (Number(result.numUpdatedRows) !== 1) throw new NotHeld();
      });
      return true;
    } catch (error) {
      if (error instanceof NotHeld) return false;
      throw error;
    }
  }

  /**
   * Settles a call that answered: charges the exact cost of `usage` and of the priced tool
   * calls the turn made (`tools`, held before each with `reserveMore`) from the
   * reservation, plus a conditional debit in the rare case the cost exceeds it, returns
   * the rest and runs `write` in the same transaction. Null when the row was already closed.
   */
  async succeed(
    requestId: string,
    usage: LlmUsage,
    write: (trx: Trx, charge: LlmCharge) => Promise<{ assistantMessageId: string | null }>,
    tools: LlmToolCharges = NO_TOOL_CHARGES,
  ): Promise<LlmCharge | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('llm_requests')
        .select([
          'workspace_id',
          'reserved_millicredits',
          'input_price_millicredits_per_1m',
          'output_price_millicredits_per_1m',
        ])
        .where('request_id', '=', requestId)
        .where('status', '=', 'started')
        .executeTakeFirst();
      if (!row) return null;
      const reserved = Number(row.reserved_millicredits);
      const cost =
        llmCostMillicredits(usage, {
          inputMillicreditsPer1M: Number(row.input_price_millicredits_per_1m),
          outputMillicreditsPer1M: Number(row.output_price_millicredits_per_1m),
        }) + tools.webSearchMillicredits;
      let charged = cost;
      if (cost > reserved && !(await debitBalance(trx, row.workspace_id, cost - reserved))) {
        charged = reserved;
      }
      const charge = { chargedMillicredits: charged, costMillicredits: cost };
      const { assistantMessageId } = await write(trx, charge);
      if (!(await this.close(trx, requestId, 'succeeded', null, charge, usage, tools))) {
        return null;
      }
      await this.assistant(trx, requestId, assistantMessageId);
      if (reserved > charged) await creditBalance(trx, row.workspace_id, reserved - charged);
      return charge;
    });
  }

  /**
   * Closes a call that did not answer (`failed` with the code, or `cancelled`): nothing is
   * charged, the whole reservation returns, and `write` runs in the same transaction (the
   * turn's messages are removed). False when the row was already closed.
   */
  async fail(
    requestId: string,
    status: Exclude<LlmRequestStatus, 'started' | 'succeeded'>,
    errorCode: ErrorCode | null,
    write?: (trx: Trx) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('llm_requests')
        .select(['workspace_id', 'reserved_millicredits'])
        .where('request_id', '=', requestId)
        .where('status', '=', 'started')
        .executeTakeFirst();
      if (!row) return false;
      const none = { chargedMillicredits: 0, costMillicredits: 0 };
      if (!(await this.close(trx, requestId, status, errorCode, none, null))) return false;
      const reserved = Number(row.reserved_millicredits);
      if (reserved > 0) await creditBalance(trx, row.workspace_id, reserved);
      await write?.(trx);
      return true;
    });
  }

  /**
   * Closes as failed the rows that processes left open when they died (this instance id
   * before this life, or instances silent for `staleAfterMs`), refunding them and removing
   * the user messages of their turns. Returns how many rows were closed.
   */
  closeAbandoned(staleAfterMs: number): Promise<number> {
    return closeRowsOfDeadProcesses({
      db: this.db,
      life: { instanceId: this.instanceId, startedAt: this.startedAt },
      staleAfterMs,
      createdColumn: 'created_at',
      find: (leftByDeadProcess) =>
        this.db
          .selectFrom('llm_requests')
          .select(['request_id', 'user_message_id'])
          .where('status', '=', 'started')
          .where(leftByDeadProcess)
          .execute(),
      close: (row) =>
        this.fail(row.request_id, 'failed', 'internal_error', async (trx) => {
          if (row.user_message_id === null) return;
          await trx
            .deleteFrom('conversation_messages')
            .where('id', '=', row.user_message_id)
            .execute();
        }),
    });
  }

  /** The conditional end of a row: true only for the one caller that closed it. */
  private async close(
    trx: Trx,
    requestId: string,
    status: Exclude<LlmRequestStatus, 'started'>,
    errorCode: ErrorCode | null,
    charge: LlmCharge,
    usage: LlmUsage | null,
    tools: LlmToolCharges = NO_TOOL_CHARGES,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('llm_requests')
      .set({
        status,
        error_code: errorCode,
        cost_millicredits: charge.chargedMillicredits,
        input_tokens: usage?.inputTokens ?? 0,
        output_tokens: usage?.outputTokens ?? 0,
        web_searches: tools.webSearches,
        web_search_millicredits: tools.webSearchMillicredits,
        reserved_millicredits: 0,
        finished_at: new Date().toISOString(),
      })
      .where('request_id', '=', requestId)
      .where('status', '=', 'started')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  private async assistant(trx: Trx, requestId: string, id: string | null): Promise<void> {
    if (id === null) return;
    await trx
      .updateTable('llm_requests')
      .set({ assistant_message_id: id })
      .where('request_id', '=', requestId)
      .execute();
  }
}

/**
 * True for a unique-index violation on either dialect whose constraint name (PostgreSQL)
 * or message (SQLite names the columns) contains one of `markers`.
 */
export function violatesUnique(error: unknown, markers: readonly string[]): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  const unique =
    e?.code === '23505' ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT_UNIQUE'));
  if (!unique) return false;
  const text = `${String(e?.constraint ?? '')} ${String(e?.message ?? '')}`;
  return markers.some((marker) => text.includes(marker));
}

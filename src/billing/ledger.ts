import type { Insertable, Kysely } from 'kysely';
import type { Environment } from '../app/config.ts';
import { ReusableQuery } from '../db/reusable-query.ts';
import type { Database, SynthesisStatus } from '../db/schema.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import { closeRowsOfDeadProcesses } from './abandoned-rows.ts';
import { creditBalance, debitBalance } from './balance.ts';
import { synthesisCostMillicredits } from './pricing.ts';

export interface LedgerStart {
  requestId: string;
  auditId: string;
  workspaceId: string;
  environment: Environment;
  /** The API key of the request; null for a signed-in operator (dashboard Playground). */
  apiKeyId: string | null;
  /** The signed-in operator whose dashboard request this is; absent for key requests. */
  operatorEmail?: string | null | undefined;
  transport: 'http' | 'websocket';
  voiceId: string;
  route: string;
  outputFormat: string;
  partnerSessionId?: string | undefined;
  contextId?: string | undefined;
  /** Characters whose cost is reserved now (the whole text of a one-shot request). */
  reserveChars: number;
  millicreditsPer1kChars: number;
  passThrough: boolean;
}

/** Where one request's audio was stored ({@link Ledger.markAudioPersistedMany}). */
export interface PersistedAudio {
  requestId: string;
  /** The store's name for the object: a `file://` URL on the local disk. */
  location: string;
}

/** A finished request as {@link Ledger.succeededRequests} reports it. */
export interface SucceededRequest {
  requestId: string;
  workspaceId: string;
  environment: Environment;
  /** As requested, e.g. `mp3_44100_128`; unchecked. */
  outputFormat: string;
  createdAt: Date;
}

/**
 * Rows per statement when many are marked or looked up at once: well under the bound
 * parameters either database allows (SQLite 32,766, PostgreSQL 65,535) at three per row.
 */
const ROWS_PER_STATEMENT = 500;

type RequestRow = Insertable<Database['synthesis_requests']>;

/** The columns {@link Ledger.start} writes, in the order its statement binds them. */
const STARTED_COLUMNS = [
  'request_id',
  'audit_id',
  'workspace_id',
  'environment',
  'api_key_id',
  'operator_email',
  'transport',
  'voice_id',
  'route',
  'output_format',
  'partner_session_id',
  'context_id',
  'chars_requested',
  'price_millicredits_per_1k_chars',
  'reserved_millicredits',
  'pass_through',
  'status',
  'instance_id',
  'created_at',
] as const satisfies readonly (keyof RequestRow)[];

// The statements of every request's life, compiled once (src/db/reusable-query.ts).
const INSERT_STARTED = new ReusableQuery((db: Kysely<Database>, ...values: unknown[]) =>
  db
    .insertInto('synthesis_requests')
    .values(
      Object.fromEntries(STARTED_COLUMNS.map((column, at) => [column, values[at]])) as RequestRow,
    ),
);

const COUNT_MORE_CHARS = new ReusableQuery(
  (db: Kysely<Database>, requestId: string, workspaceId: string, chars: number) =>
    db
      .updateTable('synthesis_requests')
      .set((eb) => ({ chars_requested: eb('chars_requested', '+', chars) }))
      .where('request_id', '=', requestId)
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'started')
      .returning(['price_millicredits_per_1k_chars', 'chars_requested', 'reserved_millicredits']),
);

const SET_RESERVED = new ReusableQuery(
  (db: Kysely<Database>, requestId: string, reserved: number) =>
    db
      .updateTable('synthesis_requests')
      .set({ reserved_millicredits: reserved })
      .where('request_id', '=', requestId),
);

const CLAIM_OPEN_ROW = new ReusableQuery(
  (
    db: Kysely<Database>,
    requestId: string,
    status: Exclude<SynthesisStatus, 'started'>,
    errorCode: ErrorCode | null,
    charsSynthesized: number,
    providerAudioMs: number,
    encodedDurationMs: number,
    finishedAt: string,
  ) =>
    db
      .updateTable('synthesis_requests')
      .set({
        status,
        error_code: errorCode,
        chars_synthesized: charsSynthesized,
        provider_audio_ms: providerAudioMs,
        encoded_duration_ms: encodedDurationMs,
        finished_at: finishedAt,
      })
      .where('request_id', '=', requestId)
      .where('status', '=', 'started')
      .returning(['workspace_id', 'reserved_millicredits', 'price_millicredits_per_1k_chars']),
);

const SET_COST = new ReusableQuery((db: Kysely<Database>, requestId: string, cost: number) =>
  db
    .updateTable('synthesis_requests')
    .set({ cost_millicredits: cost, reserved_millicredits: 0 })
    .where('request_id', '=', requestId),
);

export interface LedgerOutcome {
  status: Exclude<SynthesisStatus, 'started'>;
  errorCode?: ErrorCode | undefined;
  charsSynthesized: number;
  providerAudioMs: number;
  encodedDurationMs: number;
}

/**
 * The audit ledger and the credit it moves.
 *
 * The life of a request, all keyed by its request id:
 * - {@link Ledger.start} writes the row and reserves the credit for the text known so far,
 *   in one transaction, before any audio is produced;
 * - {@link Ledger.reserveMore} reserves the cost of more text while the row is open;
 * - {@link Ledger.finish} closes the row: it charges what was synthesized and refunds the
 *   rest of the reservation.
 *
 * The rules that make this exact under concurrency (several api processes, sweepers and a
 * slow live node closing the same row; PostgreSQL runs them truly in parallel):
 * - every change to an open row starts with a conditional update
 *   (`... where status = 'started'`) that takes the row's lock; whoever gets no row back
 *   does nothing, so a request is refunded once and a reservation never lands on a closed
 *   row;
 * - the amounts used (reserved, price) are the ones that update returns, read under that
 *   lock, never a value read before it;
 * - the balance only moves by increments and conditional decrements (src/billing/balance.ts),
 *   so the balance, the charges and the open reservations always add up to the grants.
 *
 * Other features that bill (text conversations, live agent sessions) follow the same
 * protocol with the helpers of balance.ts, or record their requests here.
 */
export class Ledger {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly instanceId: string,
  ) {}

  /** Opens the row and reserves credit; `insufficient_credit` leaves a failed row. */
  async start(entry: LedgerStart): Promise<void> {
    const reserve = synthesisCostMillicredits(entry.reserveChars, entry.millicreditsPer1kChars);
    const now = new Date().toISOString();
    const row = {
      request_id: entry.requestId,
      audit_id: entry.auditId,
      workspace_id: entry.workspaceId,
      environment: entry.environment,
      api_key_id: entry.apiKeyId,
      operator_email: entry.operatorEmail ?? null,
      transport: entry.transport,
      voice_id: entry.voiceId,
      route: entry.route,
      output_format: entry.outputFormat,
      partner_session_id: entry.partnerSessionId ?? null,
      context_id: entry.contextId ?? null,
      chars_requested: entry.reserveChars,
      price_millicredits_per_1k_chars: entry.millicreditsPer1kChars,
      reserved_millicredits: reserve,
      pass_through: entry.passThrough ? 1 : 0,
      status: 'started' as const,
      instance_id: this.instanceId,
      created_at: now,
    };
    const reserved = await this.db.transaction().execute(async (trx) => {
      if (!(await debitBalance(trx, entry.workspaceId, reserve))) return false;
      await INSERT_STARTED.execute(trx, ...STARTED_COLUMNS.map((column) => row[column]));
      return true;
    });
    if (!reserved) {
      await this.db
        .insertInto('synthesis_requests')
        .values({
          ...row,
          reserved_millicredits: 0,
          status: 'failed',
          error_code: 'insufficient_credit',
          finished_at: now,
        })
        .execute();
      throw new ApiError('insufficient_credit', 'The workspace credit cannot cover this text.');
    }
  }

  /**
   * Reserves the cost of `chars` more characters of an open request (streaming text as it
   * arrives). Throws `insufficient_credit` when the balance cannot cover them, and also
   * when the request is no longer open: nothing is debited then.
   */
  async reserveMore(requestId: string, workspaceId: string, chars: number): Promise<void> {
    const ok = await this.db
      .transaction()
      .execute(async (trx) => {
        // Counting the characters first takes the row's lock: a concurrent finish waits
        // for this reservation and then refunds it, or has already closed the row.
        const [row] = (await COUNT_MORE_CHARS.execute(trx, requestId, workspaceId, chars)).rows;
        if (!row) return false;
        const reserved = Number(row.reserved_millicredits);
        const extra =
          synthesisCostMillicredits(
            Number(row.chars_requested),
            Number(row.price_millicredits_per_1k_chars),
          ) - reserved;
        if (extra <= 0) return true;
        // Rolls back the character count too.
        if (!(await debitBalance(trx, workspaceId, extra))) throw new NotCovered();
        await SET_RESERVED.execute(trx, requestId, reserved + extra);
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof NotCovered) return false;
        throw error;
      });
    if (!ok)
      throw new ApiError('insufficient_credit', 'The workspace credit cannot cover this text.');
  }

  /**
   * Closes the row: charges for the characters synthesized (nothing for a failure before
   * any audio) and returns the rest of the reservation. Returns the charge. Idempotent and
   * safe against concurrent closers: only the one whose status update wins refunds.
   */
  /**
   * Names the route that served an open request after failover. The price stays the one
   * reserved at the start: the client was quoted the voice, not a route.
   */
  async recordServingRoute(requestId: string, route: string): Promise<void> {
    await this.db
      .updateTable('synthesis_requests')
      .set({ route })
      .where('request_id', '=', requestId)
      .where('status', '=', 'started')
      .execute();
  }

  async finish(requestId: string, outcome: LedgerOutcome): Promise<number> {
    return (await this.#close(requestId, outcome)).cost;
  }

  async #close(
    requestId: string,
    outcome: LedgerOutcome,
  ): Promise<{ cost: number; closed: boolean }> {
    return this.db.transaction().execute(async (trx) => {
      const [claimed] = (
        await CLAIM_OPEN_ROW.execute(
          trx,
          requestId,
          outcome.status,
          outcome.errorCode ?? null,
          outcome.charsSynthesized,
          Math.round(outcome.providerAudioMs),
          Math.round(outcome.encodedDurationMs),
          new Date().toISOString(),
        )
      ).rows;
      if (!claimed) {
        // Closed already (by this process, a sweeper or another node): report its charge.
        const row = await trx
          .selectFrom('synthesis_requests')
          .select('cost_millicredits')
          .where('request_id', '=', requestId)
          .executeTakeFirst();
        return { cost: Number(row?.cost_millicredits ?? 0), closed: false };
      }
      const reserved = Number(claimed.reserved_millicredits);
      const cost = Math.min(
        reserved,
        synthesisCostMillicredits(
          outcome.charsSynthesized,
          Number(claimed.price_millicredits_per_1k_chars),
        ),
      );
      await SET_COST.execute(trx, requestId, cost);
      await creditBalance(trx, claimed.workspace_id, reserved - cost);
      return { cost, closed: true };
    });
  }

  /**
   * Records where the audio of each request was stored (`audio_persisted = 1` and its
   * location), all in one transaction. Idempotent: marking a row again rewrites the same
   * values; request ids without a row are ignored.
   */
  async markAudioPersistedMany(entries: readonly PersistedAudio[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let start = 0; start < entries.length; start += ROWS_PER_STATEMENT) {
        const chunk = entries.slice(start, start + ROWS_PER_STATEMENT);
        // One statement per chunk: each row gets its own location through a CASE.
        await trx
          .updateTable('synthesis_requests')
          .set((eb) => {
            let locations = eb
              .case('request_id')
              .when(chunk[0]!.requestId)
              .then(chunk[0]!.location);
            for (const entry of chunk.slice(1)) {
              locations = locations.when(entry.requestId).then(entry.location);
            }
            return { audio_persisted: 1, audio_location: locations.end() };
          })
          .where(
            'request_id',
            'in',
            chunk.map((entry) => entry.requestId),
          )
          .execute();
      }
    });
  }

  /**
   * The `succeeded` rows among `requestIds`, with what names their stored audio; ids
   * without such a row are left out.
   */
  async succeededRequests(requestIds: readonly string[]): Promise<SucceededRequest[]> {
    const found: SucceededRequest[] = [];
    for (let start = 0; start < requestIds.length; start += ROWS_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom('synthesis_requests')
        .select(['request_id', 'workspace_id', 'environment', 'output_format', 'created_at'])
        .where('request_id', 'in', requestIds.slice(start, start + ROWS_PER_STATEMENT))
        .where('status', '=', 'succeeded')
        .execute();
      for (const row of rows) {
        found.push({
          requestId: row.request_id,
          workspaceId: row.workspace_id,
          environment: row.environment,
          outputFormat: row.output_format,
          createdAt: new Date(row.created_at),
        });
      }
    }
    return found;
  }

  /**
   * Closes as failed the rows that processes left open when they died: those of this
   * instance id created before this process started (a restart under the same id), and
   * those of any other instance whose heartbeat is missing or older than `staleAfterMs`,
   * whenever they were created (a peer may die long after this process started). Their
   * reserved credit is returned. Returns how many rows this call closed; rows another
   * sweeper closed first are not counted.
   */
  closeAbandoned(staleAfterMs: number): Promise<number> {
    return closeRowsOfDeadProcesses({
      db: this.db,
      life: { instanceId: this.instanceId, startedAt: this.startedAt },
      staleAfterMs,
      createdColumn: 'created_at',
      find: (leftByDeadProcess) =>
        this.db
          .selectFrom('synthesis_requests')
          .select('request_id')
          .where('status', '=', 'started')
          .where(leftByDeadProcess)
          .execute(),
      close: async (row) =>
        (
          await this.#close(row.request_id, {
            status: 'failed',
            errorCode: 'internal_error',
            charsSynthesized: 0,
            providerAudioMs: 0,
            encodedDurationMs: 0,
          })
        ).closed,
    });
  }

  /** Rows created after this moment belong to this process's life. */
  private readonly startedAt = new Date().toISOString();
}

/** The balance could not cover a reservation: rolls its transaction back. */
class NotCovered extends Error {}

import type { Kysely } from 'kysely';
import type { Environment } from '../app/config.ts';
import { closeRowsOfDeadProcesses } from '../billing/abandoned-rows.ts';
import { creditBalance, debitBalance } from '../billing/balance.ts';
import { audioCostMillicredits } from '../billing/pricing.ts';
import type { Database, TranscriptionSessionStatus } from '../db/schema.ts';
import type { ErrorCode } from '../errors.ts';
import { emitTranscriptionSessionEvent } from './session-events.ts';

/** What a session's row is opened with. */
export interface SessionOpening {
  id: string;
  auditId: string;
  workspaceId: string;
  environment: Environment;
  apiKeyId: string;
  engine: string;
  audioFormat: string;
  language: string | undefined;
  partnerSessionId: string | undefined;
  priceMillicreditsPerMinute: number;
  /** Credit held from the start: the cost of the first stretch of audio. */
  reserveMillicredits: number;
}

/** How a session ended. */
export interface SessionOutcome {
  status: Exclude<TranscriptionSessionStatus, 'active'>;
  errorCode?: ErrorCode | undefined;
  audioMs: number;
  /** Whether the audio is charged (false when the service failed it). */
  charge: boolean;
}

/** One final segment as stored. */
export interface StoredSegment {
  segmentId: number;
  text: string;
  startMs: number;
  endMs: number;
  language: string | undefined;
}

/** Thrown inside a reservation's transaction to roll it back. */
class NotCovered extends Error {}

/**
 * The transcription sessions' rows and their credit, under the rules of the other ledgers:
 * credit is reserved ahead of the audio with conditional debits (the balance never goes
 * negative), the close is one conditional status change that only one closer wins, and
 * that closer charges the audio's cost from the reservation and returns the rest.
 */
export class TranscriptionSessionStore {
  /** Rows started after this moment belong to this process's life. */
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly instanceId: string,
  ) {}

  /**
   * Writes the `active` row with its first reservation and its `transcription_session.started`
   * webhook event. False when the balance cannot cover it: the row is then written `failed`
   * with `insufficient_credit`, and no event (the session never started).
   */
  async open(entry: SessionOpening): Promise<boolean> {
    const row = {
      id: entry.id,
      audit_id: entry.auditId,
      workspace_id: entry.workspaceId,
      environment: entry.environment,
      api_key_id: entry.apiKeyId,
      instance_id: this.instanceId,
      status: 'active' as const,
      error_code: null,
      engine: entry.engine,
      audio_format: entry.audioFormat,
      language: entry.language ?? null,
      partner_session_id: entry.partnerSessionId ?? null,
      price_millicredits_per_minute: entry.priceMillicreditsPerMinute,
      reserved_millicredits: entry.reserveMillicredits,
      started_at: new Date().toISOString(),
      ended_at: null,
    };
    const opened = await this.db.transaction().execute(async (trx) => {
      if (!(await debitBalance(trx, entry.workspaceId, entry.reserveMillicredits))) return false;
      await trx.insertInto('transcription_sessions').values(row).execute();
      await emitTranscriptionSessionEvent(trx, entry, {
        type: 'transcription_session.started',
        sessionId: entry.id,
        timestamp: row.started_at,
      });
      return true;
    });
    if (!opened) {
      await this.db
        .insertInto('transcription_sessions')
        .values({
          ...row,
          status: 'failed',
          error_code: 'insufficient_credit',
          reserved_millicredits: 0,
          ended_at: row.started_at,
        })
        .execute();
    }
    return opened;
  }

  /**
   * Holds `millicredits` more for an active session and records the audio received so far.
   * The row is updated first (its lock, then the workspace's); a debit the balance cannot
   * cover rolls both back. False when not covered or the session is no longer active.
   */
  async reserve(id: string, millicredits: number, audioMs: number): Promise<boolean> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const row = await trx
          .updateTable('transcription_sessions')
          .set((eb) => ({
            reserved_millicredits: eb('reserved_millicredits', '+', millicredits),
            audio_ms: Math.round(audioMs),
          }))
          .where('id', '=', id)
          .where('status', '=', 'active')
          .returning('workspace_id')
          .executeTakeFirst();
        if (!row) return false;
        if (!(await debitBalance(trx, row.workspace_id, millicredits))) throw new NotCovered();
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof NotCovered) return false;
        throw error;
      });
  }

  /** Stores one final segment (idempotent per segment id). */
  async addSegment(sessionId: string, segment: StoredSegment): Promise<void> {
    await this.db
      .insertInto('transcription_segments')
      .values({
        session_id: sessionId,
        segment_id: segment.segmentId,
        text: segment.text,
        start_ms: Math.round(segment.startMs),
        end_ms: Math.round(segment.endMs),
        language: segment.language ?? null,
        created_at: new Date().toISOString(),
      })
      .onConflict((oc) => oc.columns(['session_id', 'segment_id']).doNothing())
      .execute();
  }

  /**
   * Ends an active session: charges the cost of `audioMs` (at most what is reserved; none
   * without `charge`) and returns the rest. Returns the charge in millicredits, or null when
   * the session had already ended (another closer won). The winner writes the
   * `transcription_session.ended` webhook event with the close.
   */
  async close(id: string, outcome: SessionOutcome): Promise<number | null> {
    return this.db.transaction().execute(async (trx) => {
      const endedAt = new Date().toISOString();
      const claimed = await trx
        .updateTable('transcription_sessions')
        .set({
          status: outcome.status,
          error_code: outcome.errorCode ?? null,
          audio_ms: Math.round(outcome.audioMs),
          ended_at: endedAt,
        })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .returning([
          'workspace_id',
          'environment',
          'reserved_millicredits',
          'price_millicredits_per_minute',
        ])
        .executeTakeFirst();
      if (!claimed) return null;
      const reserved = Number(claimed.reserved_millicredits);
      const cost = outcome.charge
        ? Math.min(
            reserved,
            audioCostMillicredits(outcome.audioMs, Number(claimed.price_millicredits_per_minute)),
          )
        : 0;
      await trx
        .updateTable('transcription_sessions')
        .set({ charged_millicredits: cost, reserved_millicredits: 0 })
        .where('id', '=', id)
        .execute();
      await creditBalance(trx, claimed.workspace_id, reserved - cost);
      await emitTranscriptionSessionEvent(
        trx,
        { workspaceId: claimed.workspace_id, environment: claimed.environment },
        { type: 'transcription_session.ended', sessionId: id, timestamp: endedAt },
      );
      return cost;
    });
  }

  /**
   * Ends the sessions that api processes left active when they died (this instance id
   * before this life, or instances silent for `staleAfterMs`): `failed` with
   * `internal_error`, charged for the audio their last reservation recorded. Returns how
   * many this call ended.
   */
  closeAbandoned(staleAfterMs: number): Promise<number> {
    return closeRowsOfDeadProcesses({
      db: this.db,
      life: { instanceId: this.instanceId, startedAt: this.startedAt },
      staleAfterMs,
      createdColumn: 'started_at',
      find: (leftByDeadProcess) =>
        this.db
          .selectFrom('transcription_sessions')
          .select(['id', 'audio_ms'])
          .where('status', '=', 'active')
          .where(leftByDeadProcess)
          .execute(),
      close: async (row) =>
        (await this.close(row.id, {
          status: 'failed',
          errorCode: 'internal_error',
          audioMs: Number(row.audio_ms),
          charge: true,
        })) !== null,
    });
  }
}

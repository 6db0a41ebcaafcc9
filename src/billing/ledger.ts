import type { Kysely } from 'kysely';
import type { Environment } from '../config.ts';
import type { Database, SynthesisStatus } from '../db/schema.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import { costMillicredits } from './cost.ts';

export interface LedgerStart {
  requestId: string;
  auditId: string;
  workspaceId: string;
  environment: Environment;
  apiKeyId: string | null;
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

export interface LedgerOutcome {
  status: Exclude<SynthesisStatus, 'started'>;
  errorCode?: ErrorCode | undefined;
  charsSynthesized: number;
  providerAudioMs: number;
  encodedDurationMs: number;
}

/**
 * The audit ledger and the credit it moves. A request's row is written, with its credit
 * reserved, in one transaction before any audio is produced; the end settles the charge
 * for what was synthesized and releases the rest. The conditional debit keeps the balance
 * from ever going negative, whatever the concurrency.
 */
export class Ledger {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly instanceId: string,
  ) {}

  /** Opens the row and reserves credit; `insufficient_credit` leaves a failed row. */
  async start(entry: LedgerStart): Promise<void> {
    const reserve = costMillicredits(entry.reserveChars, entry.millicreditsPer1kChars);
    const now = new Date().toISOString();
    const row = {
      request_id: entry.requestId,
      audit_id: entry.auditId,
      workspace_id: entry.workspaceId,
      environment: entry.environment,
      api_key_id: entry.apiKeyId,
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
      if (reserve > 0 && !(await debit(trx, entry.workspaceId, reserve))) return false;
      await trx.insertInto('synthesis_requests').values(row).execute();
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
   * Reserves the cost of `chars` more characters of a running request (streaming text as
   * it arrives). Throws `insufficient_credit` when the balance cannot cover them.
   */
  async reserveMore(requestId: string, workspaceId: string, chars: number): Promise<void> {
    const ok = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('synthesis_requests')
        .select(['price_millicredits_per_1k_chars', 'chars_requested', 'reserved_millicredits'])
        .where('request_id', '=', requestId)
        .where('status', '=', 'started')
        .executeTakeFirst();
      if (!row) return false;
      const price = Number(row.price_millicredits_per_1k_chars);
      const total = Number(row.chars_requested) + chars;
      const extra = costMillicredits(total, price) - Number(row.reserved_millicredits);
      if (extra > 0 && !(await debit(trx, workspaceId, extra))) return false;
      await trx
        .updateTable('synthesis_requests')
        .set({
          chars_requested: total,
          reserved_millicredits: Number(row.reserved_millicredits) + Math.max(0, extra),
        })
        .where('request_id', '=', requestId)
        .execute();
      return true;
    });
    if (!ok)
      throw new ApiError('insufficient_credit', 'The workspace credit cannot cover this text.');
  }

  /**
   * Closes the row: charges for the characters synthesized (nothing for a failure before
   * any audio) and returns the rest of the reservation. Returns the charge. Idempotent.
   */
  async finish(requestId: string, outcome: LedgerOutcome): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('synthesis_requests')
        .select([
          'workspace_id',
          'reserved_millicredits',
          'price_millicredits_per_1k_chars',
          'status',
          'cost_millicredits',
        ])
        .where('request_id', '=', requestId)
        .executeTakeFirst();
      if (!row) return 0;
      if (row.status !== 'started') return Number(row.cost_millicredits);
      const reserved = Number(row.reserved_millicredits);
      const cost = Math.min(
        reserved,
        costMillicredits(outcome.charsSynthesized, Number(row.price_millicredits_per_1k_chars)),
      );
      if (reserved - cost > 0) {
        await trx
          .updateTable('workspaces')
          .set((eb) => ({
            credit_balance_millicredits: eb('credit_balance_millicredits', '+', reserved - cost),
          }))
          .where('id', '=', row.workspace_id)
          .execute();
      }
      await trx
        .updateTable('synthesis_requests')
        .set({
          status: outcome.status,
          error_code: outcome.errorCode ?? null,
          chars_synthesized: outcome.charsSynthesized,
          provider_audio_ms: Math.round(outcome.providerAudioMs),
          encoded_duration_ms: Math.round(outcome.encodedDurationMs),
          cost_millicredits: cost,
          reserved_millicredits: 0,
          finished_at: new Date().toISOString(),
        })
        .where('request_id', '=', requestId)
        .where('status', '=', 'started')
        .execute();
      return cost;
    });
  }

  async markAudioPersisted(requestId: string, location: string): Promise<void> {
    await this.db
      .updateTable('synthesis_requests')
      .set({ audio_persisted: 1, audio_location: location })
      .where('request_id', '=', requestId)
      .execute();
  }

  /**
   * Closes as failed the rows that processes left open when they died: those of this
   * instance id (a restart) and of instances whose heartbeat is older than `staleAfterMs`.
   * Their reserved credit is returned. Returns how many rows were closed.
   */
  async closeAbandoned(staleAfterMs: number): Promise<number> {
    const staleBefore = new Date(Date.now() - staleAfterMs).toISOString();
    const live = this.db
      .selectFrom('service_instances')
      .select('instance_id')
      .where('last_seen_at', '>=', staleBefore)
      .where('instance_id', '!=', this.instanceId);
    const rows = await this.db
      .selectFrom('synthesis_requests')
      .select('request_id')
      .where('status', '=', 'started')
      .where('instance_id', 'not in', live)
      .where('created_at', '<', this.startedAt)
      .execute();
    for (const row of rows) {
      await this.finish(row.request_id, {
        status: 'failed',
        errorCode: 'internal_error',
        charsSynthesized: 0,
        providerAudioMs: 0,
        encodedDurationMs: 0,
      });
    }
    return rows.length;
  }

  /** Rows created after this moment belong to this process's life. */
  private readonly startedAt = new Date().toISOString();
}

async function debit(
  trx: Kysely<Database>,
  workspaceId: string,
  millicredits: number,
): Promise<boolean> {
  const result = await trx
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '-', millicredits),
    }))
    .where('id', '=', workspaceId)
    .where('credit_balance_millicredits', '>=', millicredits)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

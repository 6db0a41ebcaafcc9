import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Logger } from '../observability/logger.ts';
import type { AgentSessions } from './agent-sessions.ts';
import type { LivekitRooms } from './livekit-rooms.ts';

/** How long a session taken out of its room is left to its worker before trying again. */
const RETRY_AFTER_MS = 15_000;

export interface RevokedSessionSweepOptions {
  db: Kysely<Database>;
  redis: Redis;
  /** `REDIS_PREFIX`: the lock is shared by the deployment's api processes. */
  redisPrefix: string;
  rooms: LivekitRooms;
  sessions: AgentSessions;
  intervalMs: number;
  logger: Logger;
}

/**
 * Ends the Agent sessions whose key was revoked or whose workspace was suspended. Each
 * interval, one api process of the deployment (the one that takes a short Redis lock)
 * lists the running sessions in that state, by whichever process or tool made the change.
 * A session the worker already runs loses its end user from the LiveKit room, and the
 * worker ends it and bills the time used (its usual end of session); a session no worker
 * took yet has its room removed and ends at once, with nothing to bill.
 */
export class RevokedSessionSweep {
  readonly #timer: NodeJS.Timeout;
  readonly #removedAt = new Map<string, number>();
  #running = false;

  constructor(private readonly options: RevokedSessionSweepOptions) {
    this.#timer = setInterval(() => void this.#tick(), options.intervalMs);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      const lock = await this.options.redis.set(
        `${this.options.redisPrefix}:revoked-session-sweep`,
        '1',
        'PX',
        this.options.intervalMs,
        'NX',
      );
      if (lock === 'OK') await this.sweep();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'ending sessions of revoked keys failed');
    } finally {
      this.#running = false;
    }
  }

  /** One pass: the running sessions of revoked keys and suspended workspaces end. */
  async sweep(): Promise<void> {
    const rows = await this.options.db
      .selectFrom('agent_sessions')
      .innerJoin('api_keys', 'api_keys.id', 'agent_sessions.api_key_id')
      .innerJoin('workspaces', 'workspaces.id', 'agent_sessions.workspace_id')
      .select([
        'agent_sessions.id',
        'agent_sessions.state',
        'api_keys.status as keyStatus',
        'workspaces.status as workspaceStatus',
      ])
      .where('agent_sessions.state', 'in', ['connecting', 'active'])
      .where((eb) =>
        eb.or([eb('api_keys.status', '!=', 'active'), eb('workspaces.status', '=', 'suspended')]),
      )
      .execute();
    const now = Date.now();
    for (const [id, at] of this.#removedAt)
      if (now - at > RETRY_AFTER_MS) this.#removedAt.delete(id);
    for (const row of rows) {
      if (this.#removedAt.has(row.id)) continue;
      this.#removedAt.set(row.id, now);
      const reason = row.workspaceStatus === 'suspended' ? 'workspace_suspended' : 'key_revoked';
      this.options.logger.info({ session_id: row.id, reason }, 'ending a live session');
      try {
        if (row.state === 'connecting') {
          await this.options.rooms.close(row.id).catch(() => {});
          await this.options.sessions.end(row.id, 'ended', reason);
        } else {
          await this.options.rooms.removeUser(row.id);
        }
      } catch (error) {
        this.options.logger.warn(
          { err: error, session_id: row.id },
          'ending a live session failed',
        );
      }
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

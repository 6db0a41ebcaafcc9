import type { AgentSessionPrices } from '../billing/pricing.ts';
import type { Logger } from '../observability/logger.ts';
import type { AgentSessions } from './agent-sessions.ts';
import type { LivekitRooms } from './livekit-rooms.ts';

/**
 * Hand-overs of one session at most: a session whose jobs keep dying (a conversation
 * that crashes every job) is left to the heartbeat timeout, which fails it.
 */
const MAX_EPOCH = 10;

/** The end reason of a session whose job was lost after its end user left the room. */
export const USER_LEFT_DURING_HANDOVER = 'user_left_during_handover';

/**
 * How long after its start a session's end user may still be on the way into the room
 * (the worker waits as long for them before greeting; an application session's user joins
 * after its backend's handshake): a lapsed session younger than this is handed over even
 * with nobody in the room.
 */
const USER_JOIN_GRACE_MS = 30_000;

export interface SessionHandoverOptions {
  sessions: Pick<AgentSessions, 'lapsedLeases' | 'claimHandover' | 'endUnattended'>;
  rooms: Pick<LivekitRooms, 'redispatch' | 'endUserPresent' | 'close'>;
  /** What a session ended here is charged at (the api's configured prices). */
  prices: AgentSessionPrices;
  /** `AGENT_SESSION_HANDOVER_AFTER_MS`: a lease not renewed this long has lapsed. */
  lapsedAfterMs: number;
  /** `AGENT_SESSION_MAX_DURATION_MS`: the resumed job's limit counts from the session start. */
  maxDurationMs: number;
  logger: Logger;
  now?: () => number;
}

/**
 * Finds the running sessions whose job stopped renewing its lease (its job process or its
 * whole worker died) and dispatches the Agent again to the same room, where a new job
 * resumes the conversation. Every api host may run it: the claim is a conditional update
 * of the session's epoch, so one host hands a lapsed job over once; a session is handed
 * over once per lapse (a new job that never takes it leaves it to the heartbeat timeout).
 * A session whose end user is no longer in the room is ended instead (nobody to resume
 * it for), charged what its lost job's lease covered.
 */
export class SessionHandoverSweep {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(private readonly options: SessionHandoverOptions) {}

  /** One pass; returns how many sessions this host handed over. */
  async sweep(): Promise<number> {
    const { sessions, rooms, lapsedAfterMs, logger } = this.options;
    const now = this.options.now?.() ?? Date.now();
    const lapsed = await sessions.lapsedLeases(new Date(now - lapsedAfterMs), 50);
    let handed = 0;
    for (const session of lapsed) {
      if (session.epoch + 1 >= MAX_EPOCH) continue;
      const startedMs = session.startedAt ? Date.parse(session.startedAt) : now;
      if (now - startedMs >= USER_JOIN_GRACE_MS && (await this.#endIfUserLeft(session))) continue;
      if (!(await sessions.claimHandover(session.id, session.epoch))) continue;
      const remainingMs = Math.max(1000, this.options.maxDurationMs - (now - startedMs));
      try {
        await rooms.redispatch(session.id, session.epoch + 1, remainingMs);
        handed++;
        logger.warn(
          { session_id: session.id, epoch: session.epoch + 1 },
          'live session lost its job; dispatched again to resume',
        );
      } catch (error) {
        // The claim stands: the session fails at the heartbeat timeout.
        logger.warn({ err: error, session_id: session.id }, 'live session hand-over failed');
      }
    }
    return handed;
  }

  /**
   * Ends a lapsed session whose end user left the room; true when it is over (ended here
   * or by another host), false when the user is there (or LiveKit could not say: the
   * hand-over goes on as usual).
   */
  async #endIfUserLeft(session: { id: string; epoch: number }): Promise<boolean> {
    const { sessions, rooms, prices, logger } = this.options;
    let present: boolean;
    try {
      present = await rooms.endUserPresent(session.id);
    } catch (error) {
      logger.warn({ err: error, session_id: session.id }, 'room participants not listed');
      return false;
    }
    if (present) return false;
    const ended = await sessions.endUnattended(
      session.id,
      session.epoch,
      USER_LEFT_DURING_HANDOVER,
      prices,
    );
    if (!ended) return true;
    // The lost job's participant may still be listed until LiveKit times it out.
    await rooms.close(session.id).catch(() => {});
    logger.info(
      { session_id: session.id, epoch: session.epoch },
      'live session lost its job after the end user left; ended',
    );
    return true;
  }

  /** Looks every third of the bound, so a lapsed lease is handed over within 4/3 of it. */
  start(): void {
    const intervalMs = Math.max(200, Math.floor(this.options.lapsedAfterMs / 3));
    this.#timer = setInterval(() => {
      this.#running = this.sweep()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'live session hand-over sweep failed'),
        );
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }
}

import { DisconnectReason, type Room, RoomEvent } from '@livekit/rtc-node';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { JobLease } from './job-lease.ts';
import type { SessionBilling } from './session-billing.ts';
import type { SessionDependencies } from './session-deps.ts';
import type { TakenSession } from './session-job.ts';

/**
 * A job shut down from outside while its conversation runs (its worker drained past the
 * grace, or closed; or its participant taken out of the room): the session is handed to a
 * new job, as after a crash but without waiting for the lease to lapse. A deleted room, or hand-over turned off, ends it instead;
 * an end this job's own code made (the user left, an error) leaves nothing to hand over.
 */
export class ShutdownHandover {
  #roomDeleted = false;
  #handingOver: Promise<void> | undefined;

  constructor(
    room: Room,
    private readonly deps: Pick<SessionDependencies, 'api' | 'config'>,
    private readonly run: { taken: TakenSession; lease: JobLease; billing: SessionBilling },
    private readonly log: Logger,
  ) {
    room.on(RoomEvent.Disconnected, (reason: DisconnectReason) => {
      if (reason === DisconnectReason.ROOM_DELETED) this.#roomDeleted = true;
      // Taken out of the room from outside (its participant removed, a connection that
      // could not be resumed) while the conversation runs: a new job takes it at once,
      // rather than after the framework's wait (15 s) for this job's entry to return.
      else if (reason !== DisconnectReason.CLIENT_INITIATED && this.allowed()) {
        this.log.warn({ reason }, 'job taken out of the room mid-conversation');
        void this.handOver();
      }
    });
  }

  /** Whether the session can go on in a new job. */
  allowed(): boolean {
    return (
      !this.run.billing.over &&
      !this.#roomDeleted &&
      this.deps.config.AGENT_SESSION_HANDOVER_AFTER_MS > 0
    );
  }

  /**
   * Gives the session up: its lease is marked lapsed, for the api's next sweep. Once: the
   * session's close and the job's shutdown both ask, and both wait for the one release. A
   * release that fails is logged: the lease then lapses by itself within the bound.
   */
  handOver(): Promise<void> {
    this.#handingOver ??= this.#release();
    return this.#handingOver;
  }

  async #release(): Promise<void> {
    await this.run.lease.stop();
    this.run.billing.handedAway();
    const { record, epoch } = this.run.taken;
    try {
      const released = await this.deps.api.sessions.releaseLease(
        record.id,
        epoch,
        this.deps.config.AGENT_SESSION_HANDOVER_AFTER_MS + 1,
      );
      this.log.info(
        { epoch, released },
        'job shut down mid-conversation; session left to a new job',
      );
    } catch (error) {
      this.log.warn(
        { err: error, epoch },
        'lease not released; it lapses by itself for the hand-over',
      );
    }
  }
}

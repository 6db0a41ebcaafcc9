import type { Config, Logger, WorkerSessionStore } from '../../src/worker-boundary/index.ts';
import type { TakenSession } from './session-job.ts';
import { AgentSessionMeter } from './usage.ts';

/**
 * The billing and end steps of a session: the meter the pipeline reports usage to and the
 * one end that charges it. A session is charged once, by the job that ends it, for all of
 * its time since its first job started and all usage its jobs stored; a resumed job
 * starts its meter from what the jobs before it stored. A job the session was handed away
 * from ends and charges nothing (the end is conditional on its epoch).
 */
export class SessionBilling {
  #ended = false;
  #finishing: Promise<void> = Promise.resolve();

  private constructor(
    readonly meter: AgentSessionMeter,
    private readonly taken: TakenSession,
    private readonly sessions: Pick<WorkerSessionStore, 'end'>,
    private readonly log: Logger,
  ) {}

  static async open(
    taken: TakenSession,
    deps: { config: Config; sessions: Pick<WorkerSessionStore, 'end' | 'usageSoFar'> },
    log: Logger,
  ): Promise<SessionBilling> {
    const meter = new AgentSessionMeter({
      sessionCreditsPerMinute: deps.config.PRICE_AGENT_SESSION_CREDITS_PER_MINUTE,
      sttCreditsPerMinute: deps.config.PRICE_STT_CREDITS_PER_MINUTE,
    });
    if (taken.resumed) meter.carryOver(await deps.sessions.usageSoFar(taken.record.id));
    return new SessionBilling(meter, taken, deps.sessions, log);
  }

  /** How long the session has run, across its jobs. */
  sessionMs(): number {
    return Date.now() - this.taken.startedAt;
  }

  /**
   * Ends the session once (`ended` or `failed`) and charges it; a later call waits for that
   * end and changes nothing (a job given up or handed away ends nothing).
   */
  finish(state: 'ended' | 'failed', reason: string): Promise<void> {
    if (this.#ended) return this.#finishing;
    this.#ended = true;
    this.#finishing = this.#end(state, reason);
    return this.#finishing;
  }

  async #end(state: 'ended' | 'failed', reason: string): Promise<void> {
    const sessionMs = this.sessionMs();
    const millicredits = this.meter.totalMillicredits(sessionMs);
    const ended = await this.sessions.end(
      this.taken.record.id,
      state,
      reason,
      { sessionMs, millicredits },
      this.taken.epoch,
    );
    this.log.info(
      {
        state,
        reason,
        session_ms: sessionMs,
        millicredits,
        web_searches: this.meter.webSearches.count,
        ended_here: ended,
      },
      'session over',
    );
  }

  /** Whether this job has ended the session or given it up. */
  get over(): boolean {
    return this.#ended;
  }

  /** The session was handed to a newer job: this one must not end or charge it. */
  handedAway(): void {
    this.#ended = true;
  }
}

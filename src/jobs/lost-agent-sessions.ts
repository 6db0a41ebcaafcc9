import type { AgentSessions } from '../agent-sessions/agent-sessions.ts';
import type { Logger } from '../observability/logger.ts';
import { BatchSweep } from './batch-sweep.ts';

export interface LostAgentSessionSweepOptions {
  sessions: Pick<AgentSessions, 'failSilent'>;
  /** Pause between looks; half the heartbeat timeout fails a lost session within 1.5 of it. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Fails the Agent sessions whose worker went silent, in the jobs process, so a backend that
 * waits for `agent_session.ended` hears of a crashed worker without polling. Several jobs
 * processes may run it: a session ends once.
 */
export class LostAgentSessionSweep extends BatchSweep {
  constructor(options: LostAgentSessionSweepOptions) {
    super({
      step: (limit) => options.sessions.failSilent(limit),
      done: 'live sessions lost their worker',
      what: 'lost session',
      logger: options.logger,
      intervalMs: options.intervalMs,
      level: 'warn',
    });
  }
}

import type { voice } from '@livekit/agents';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { RequestTracker } from './requests.ts';
import type { WireError } from './wire.ts';

/** The value of a finished `request_reply`. */
export interface SpokenUpdateResult {
  id: string;
  interrupted: boolean;
  spokenText: string;
  completion: 'worker_playout';
}

export type SpokenUpdateOutcome =
  | { ok: true; value: SpokenUpdateResult }
  | { ok: false; error: WireError };

interface Queued {
  id: string;
  instructions: string | undefined;
  resolve: (outcome: SpokenUpdateOutcome) => void;
}

const INVALIDATED: SpokenUpdateOutcome = {
  ok: false,
  error: {
    code: 'reply_invalidated',
    message: 'New user input arrived before the update was spoken.',
  },
};

/** Instructions when the backend's `prepare_reply` gives none. */
const DEFAULT_INSTRUCTIONS = 'Give the user the update that just arrived, briefly.';

/**
 * Spoken updates the backend asks for (`request_reply`): queued, spoken one at a time when
 * the Agent is idle, each answered after its playout with how much was heard. An id speaks
 * once per backend connection (a reused id answers the first outcome again). New user input
 * invalidates the updates still queued.
 */
export class SpokenUpdates {
  readonly #outcomes = new Map<string, Promise<SpokenUpdateOutcome>>();
  #queue: Queued[] = [];
  #running = false;
  /** The update whose instructions are being prepared (still invalidated by user input). */
  #preparing: Queued | undefined;
  #preparingInvalidated = false;
  /** Text of the playouts finished since the current update started speaking. */
  #heard: string[] | undefined;

  constructor(
    private readonly voiceSession: voice.AgentSession,
    private readonly requests: RequestTracker,
    private readonly log: Logger,
  ) {}

  /** Queues an update (or returns the outcome of the same id in this connection). */
  request(id: string, instructions: string | undefined): Promise<SpokenUpdateOutcome> {
    const known = this.#outcomes.get(id);
    if (known) return known;
    const outcome = new Promise<SpokenUpdateOutcome>((resolve) => {
      this.#queue.push({ id, instructions, resolve });
    });
    this.#outcomes.set(id, outcome);
    this.log.info({ reply_id: id }, 'spoken update queued');
    void this.#drain();
    return outcome;
  }

  /** New user input: queued updates answer `reply_invalidated`. */
  invalidate(): void {
    const dropped = this.#queue;
    this.#queue = [];
    for (const update of dropped) update.resolve(INVALIDATED);
    if (this.#preparing) this.#preparingInvalidated = true;
  }

  /** The backend connected again: ids are unique per connection. */
  newConnection(): void {
    this.#outcomes.clear();
  }

  /** A playout ended (from the session's playout ledger) after `spoken` was heard. */
  playoutFinished(spoken: string): void {
    if (spoken !== '') this.#heard?.push(spoken);
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        await this.voiceSession.waitForIdle();
        const next = this.#queue.shift();
        if (!next) return;
        next.resolve(await this.#speak(next));
      }
    } finally {
      this.#running = false;
    }
  }

  async #speak(update: Queued): Promise<SpokenUpdateOutcome> {
    let instructions = update.instructions;
    if (instructions === undefined) {
      this.#preparing = update;
      this.#preparingInvalidated = false;
      try {
        instructions = await this.#prepare(update.id);
      } finally {
        this.#preparing = undefined;
      }
      if (this.#preparingInvalidated) return INVALIDATED;
    }
    this.#heard = [];
    try {
      const handle = this.voiceSession.generateReply({ instructions, toolChoice: 'none' });
      await handle.waitForPlayout();
      // The playback-finished event may come a moment after the handle settles.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const spokenText = this.#heard.join(' ').trim();
      return {
        ok: true,
        value: {
          id: update.id,
          interrupted: handle.interrupted,
          spokenText,
          completion: 'worker_playout',
        },
      };
    } finally {
      this.#heard = undefined;
    }
  }

  /** Asks the backend (`prepare_reply`) what to say; a default when it gives nothing usable. */
  async #prepare(id: string): Promise<string> {
    let started: ReturnType<RequestTracker['start']>;
    try {
      started = this.requests.start({ type: 'prepare_reply', prepareReply: { id } });
    } catch (error) {
      this.log.warn({ err: error, reply_id: id }, 'prepare_reply not sent');
      return DEFAULT_INSTRUCTIONS;
    }
    const outcome = await started.done;
    if (outcome.type === 'result') {
      const value = outcome.value as { instructions?: unknown } | null;
      if (typeof value?.instructions === 'string' && value.instructions !== '') {
        return value.instructions;
      }
    }
    this.log.warn({ reply_id: id, outcome: outcome.type }, 'prepare_reply gave no instructions');
    return DEFAULT_INSTRUCTIONS;
  }
}

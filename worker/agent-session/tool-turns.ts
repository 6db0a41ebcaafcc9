import type { voice } from '@livekit/agents';

/**
 * Tool calls of a session that may run at once. The framework starts every call of a turn
 * as soon as the model names it; four covers what a model asks for in one step (a search
 * and a calendar look-up, say) while a model that asks for many cannot flood the database,
 * the search engine or the calendar API from one conversation.
 */
export const MAX_CONCURRENT_TOOL_CALLS = 4;

export interface ToolTurnOptions {
  /** A call still running this long gets the turn's filler (0: never). */
  fillerAfterMs: number;
  /** The Agent's filler phrase; undefined: the Agent says none. */
  filler: string | undefined;
  /**
   * Speaks the filler (the Agent's own speech path); returns its speech handle when there
   * is one: the user talking over the filler is a barge-in on the turn too.
   */
  say(text: string): voice.SpeechHandle | undefined;
  /** Whether the Agent is speaking now (a filler then would talk over itself). */
  agentSpeaking(): boolean;
  maxConcurrent?: number;
}

interface RunningCall {
  controller: AbortController;
  turn: voice.SpeechHandle | undefined;
}

/**
 * The managed Agent's tool calls in an Agent session: at most
 * {@link MAX_CONCURRENT_TOOL_CALLS} run at once (the rest wait their turn); a call still
 * running after `fillerAfterMs` makes the Agent say its filler, once per turn (the turn is
 * the framework's speech handle, shared by every call and step of one reply); and when the
 * user starts speaking, or talks over the filler (the framework interrupts it), every
 * running call of the turn is cancelled (its signal aborts) and its turn interrupted, so
 * nothing of its answer is spoken.
 */
export class ToolTurns {
  readonly #running = new Set<RunningCall>();
  readonly #fillerSaid = new WeakSet<voice.SpeechHandle>();
  readonly #waiting: (() => void)[] = [];
  #free: number;

  constructor(private readonly options: ToolTurnOptions) {
    this.#free = options.maxConcurrent ?? MAX_CONCURRENT_TOOL_CALLS;
  }

  /**
   * Runs one call of `turn` with a signal that aborts with `signal` or on barge-in.
   * Resolves undefined when the call was cancelled before it could start.
   */
  async run<T>(
    turn: voice.SpeechHandle | undefined,
    signal: AbortSignal,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    const call: RunningCall = { controller: new AbortController(), turn };
    const combined = AbortSignal.any([signal, call.controller.signal]);
    this.#running.add(call);
    const filler = this.#fillerTimer(call);
    try {
      if (!(await this.#acquire(combined))) return undefined;
      try {
        return await work(combined);
      } finally {
        this.#release();
      }
    } finally {
      clearTimeout(filler);
      this.#running.delete(call);
    }
  }

  /**
   * The user started speaking: running calls are cancelled and their turns interrupted
   * (the framework then speaks no answer for them). Returns how many were cancelled.
   */
  userSpoke(): number {
    for (const call of this.#running) {
      call.controller.abort();
      if (call.turn && !call.turn.interrupted && call.turn.allowInterruptions) {
        call.turn.interrupt();
      }
    }
    return this.#running.size;
  }

  /** Cancels the running calls of one turn (the user talked over its filler). */
  #cancelTurn(turn: voice.SpeechHandle): void {
    for (const call of this.#running) {
      if (call.turn !== turn) continue;
      call.controller.abort();
      if (!turn.interrupted && turn.allowInterruptions) turn.interrupt();
    }
  }

  #fillerTimer(call: RunningCall): ReturnType<typeof setTimeout> | undefined {
    const { fillerAfterMs, filler } = this.options;
    if (fillerAfterMs <= 0 || !filler) return undefined;
    return setTimeout(() => {
      const { turn } = call;
      if (!this.#running.has(call) || call.controller.signal.aborted) return;
      if (turn && (turn.interrupted || this.#fillerSaid.has(turn))) return;
      if (this.options.agentSpeaking()) return;
      if (turn) this.#fillerSaid.add(turn);
      const spoken = this.options.say(filler);
      if (turn && spoken) {
        spoken.addDoneCallback(() => {
          if (spoken.interrupted) this.#cancelTurn(turn);
        });
      }
    }, fillerAfterMs);
  }

  /** Takes a slot; false when `signal` aborted first (nothing taken). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    if (this.#free > 0) {
      this.#free--;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve(true);
      };
      const aborted = () => {
        const index = this.#waiting.indexOf(granted);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve(false);
      };
      this.#waiting.push(granted);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Hands the slot to the longest waiting call, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

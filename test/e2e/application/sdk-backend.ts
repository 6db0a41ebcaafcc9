// The customer backend of the application-session tests, built on backend-sdk: it starts
// the session with `startApplicationSession`, joins with `ApplicationConnection.join` and
// answers the worker through the library's typed handlers. A test sets the handlers it
// needs (`backend.handlers = {...}`) and may swap them between turns; the wrapper only
// records what the library delivered (each callback with its protocol requestId, each
// cancellation as the handler's AbortSignal reported it) so tests can assert exact ids and
// counts. Nothing here speaks the wire protocol itself.

import {
  ApplicationConnection,
  type ApplicationControl,
  ApplicationError,
  type ApplicationHandlers,
  CallCancelledError,
  type InputEvent,
  type InterruptionEvent,
  type PrepareReplyEvent,
  RequestLedger,
  type ToolCall,
  type TranscriptEvent,
} from '../../../backend-sdk/src/application/index.ts';
import { waitFor } from '../../helpers/wait.ts';

/** A callback the library handed to a handler, as the handler saw it. */
export type SeenCallback = { requestId: string; signal: AbortSignal } & (
  | { type: 'input'; event: InputEvent }
  | { type: 'tool'; event: ToolCall }
  | { type: 'transcript'; event: TranscriptEvent }
  | { type: 'prepare_reply'; event: PrepareReplyEvent }
  | { type: 'interruption'; event: InterruptionEvent }
);

/** A cancellation the worker sent, as the handler's signal reported it. */
export interface SeenCancel {
  requestId: string;
  reason: string;
}

/** Inputs go to the model (an error answer), transcripts are acknowledged. */
export const modelAnswers: ApplicationHandlers = {
  onInput: () => {
    throw new ApplicationError({ code: 'not_mine', message: 'the model answers' });
  },
  onTranscript: () => {},
};

// Quiet: refusals and dropped messages are what some tests provoke on purpose.
const quietLogger = { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} };

/** A promise with its resolve and reject exposed, for answers a test gives later. */
export function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

export class SdkBackend {
  /** What the test wants answered; read on every callback. */
  handlers: ApplicationHandlers;
  readonly seen: SeenCallback[] = [];
  readonly cancels: SeenCancel[] = [];
  #connection: ApplicationConnection | undefined;

  private constructor(handlers: ApplicationHandlers) {
    this.handlers = handlers;
  }

  /**
   * Joins with `control`. Each backend has its own ledger, as a backend process would: a
   * second `SdkBackend` on the same session is a restarted backend.
   */
  static async join(
    control: ApplicationControl,
    handlers: ApplicationHandlers = modelAnswers,
  ): Promise<SdkBackend> {
    const backend = new SdkBackend(handlers);
    backend.#connection = await ApplicationConnection.join(control, backend.#recording(), {
      agentTimeoutMs: 60_000,
      logger: quietLogger,
      ledger: new RequestLedger(),
    });
    return backend;
  }

  get connection(): ApplicationConnection {
    if (!this.#connection) throw new Error('not joined');
    return this.#connection;
  }

  /** Handlers that record each delivery and cancellation, then call the test's handler. */
  #recording(): ApplicationHandlers {
    const record = (seen: SeenCallback) => {
      this.seen.push(seen);
      seen.signal.addEventListener('abort', () => {
        const reason = seen.signal.reason;
        if (reason instanceof CallCancelledError) {
          this.cancels.push({ requestId: seen.requestId, reason: reason.reason });
        }
      });
    };
    const missing = (what: string): never => {
      throw new ApplicationError({ code: 'not_implemented', message: `no ${what} handler` });
    };
    return {
      onInput: (event, context) => {
        record({ type: 'input', event, ...context });
        return this.handlers.onInput ? this.handlers.onInput(event, context) : missing('onInput');
      },
      onTool: (event, context) => {
        record({ type: 'tool', event, requestId: context.requestId, signal: context.signal });
        return this.handlers.onTool ? this.handlers.onTool(event, context) : missing('onTool');
      },
      onTranscript: (event, context) => {
        record({ type: 'transcript', event, ...context });
        return this.handlers.onTranscript
          ? this.handlers.onTranscript(event, context)
          : missing('onTranscript');
      },
      onPrepareReply: (event, context) => {
        record({ type: 'prepare_reply', event, ...context });
        return this.handlers.onPrepareReply
          ? this.handlers.onPrepareReply(event, context)
          : missing('onPrepareReply');
      },
      onInterruption: (event, context) => {
        record({ type: 'interruption', event, ...context });
        return this.handlers.onInterruption?.(event, context);
      },
    };
  }

  /** The callbacks of `type` seen so far, in order. */
  of<T extends SeenCallback['type']>(type: T): Extract<SeenCallback, { type: T }>[] {
    return this.seen.filter((s): s is Extract<SeenCallback, { type: T }> => s.type === type);
  }

  /** Resolves when `probe` holds. */
  waitUntil<T>(probe: () => T, timeoutMs: number, what: string) {
    return waitFor(probe, { what, timeoutMs, intervalMs: 50 });
  }

  /** The tool callback of the model's call `callId`. */
  tool(callId: string, timeoutMs = 30_000): Promise<Extract<SeenCallback, { type: 'tool' }>> {
    return this.waitUntil(
      () => this.of('tool').find((s) => s.event.callId === callId),
      timeoutMs,
      `the tool callback of ${callId}`,
    );
  }

  /** The first input callback whose requestId is not in `taken`; adds it there. */
  async nextInput(
    taken: Set<string>,
    timeoutMs = 30_000,
  ): Promise<Extract<SeenCallback, { type: 'input' }>> {
    const input = await this.waitUntil(
      () => this.of('input').find((s) => !taken.has(s.requestId)),
      timeoutMs,
      'an input callback',
    );
    taken.add(input.requestId);
    return input;
  }

  /** The cancellation of `requestId`, once its handler's signal aborted. */
  cancelOf(requestId: string, timeoutMs = 30_000): Promise<SeenCancel> {
    return this.waitUntil(
      () => this.cancels.find((c) => c.requestId === requestId),
      timeoutMs,
      `the cancellation of ${requestId}`,
    );
  }

  async leave(): Promise<void> {
    await this.#connection?.close();
  }
}

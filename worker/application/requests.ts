import { randomUUID } from 'node:crypto';
import { APPLICATION_LIMITS } from '@awp/protocol';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { BackendLink } from './link.ts';
import {
  APPLICATION_TOPICS,
  type CallbackPayload,
  type CancelReason,
  PayloadTooLargeError,
  type ResultMessage,
  resultMessageSchema,
  type WireError,
} from './wire.ts';

/** How a callback ended. */
export type RequestOutcome =
  | { type: 'result'; value: unknown }
  | { type: 'error'; error: WireError }
  | { type: 'cancelled'; reason: CancelReason };

/** Thrown by `start` when 128 requests are already pending. */
export class TooManyPendingError extends Error {
  readonly code = 'too_many_pending';
  constructor() {
    super(`${APPLICATION_LIMITS.pendingCalls} application requests are already pending.`);
    this.name = 'TooManyPendingError';
  }
}

interface Pending {
  requestId: string;
  body: Record<string, unknown>;
  /** The backend connection it was last sent on; 0 = not sent yet. */
  sentEpoch: number;
  timer: NodeJS.Timeout | undefined;
  onProgress: ((value: unknown) => void) | undefined;
  settle: (outcome: RequestOutcome) => void;
}

/** A callback in flight. */
export interface StartedRequest {
  requestId: string;
  /** Settles once: the backend's result or error, or the worker's cancellation. */
  done: Promise<RequestOutcome>;
}

/**
 * The worker's pending callbacks: each gets a UUID `requestId`, is sent when the backend is
 * connected (again after it rejoins, with the same id), and must see a result, an error or a
 * first progress within the deadline, else it is cancelled (`deadline`). At most 128 are
 * pending. Responses to unknown, finished or cancelled requests are ignored, and so are
 * results whose stream `requestId` attribute is not the one in their body.
 */
export class RequestTracker {
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly link: BackendLink,
    private readonly options: { deadlineMs: number; log: Logger },
  ) {
    link.onReady((epoch) => {
      for (const request of this.#pending.values()) {
        if (request.sentEpoch !== epoch) this.#send(request);
      }
    });
    link.listen(
      APPLICATION_TOPICS.result,
      ({ body, attributes }) => this.#onResult(body, attributes.requestId),
      (requestId) => {
        if (requestId) {
          this.#finish(requestId, {
            type: 'error',
            error: {
              code: 'payload_too_large',
              message: 'The result exceeded 256,000 characters.',
            },
          });
        }
      },
    );
  }

  /** Requests pending now. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Sends a callback. `onProgress` receives tool progress (the first one also stops the
   * deadline). Throws `TooManyPendingError` at the limit; a body over the envelope limit
   * settles at once with `payload_too_large`.
   */
  start(payload: CallbackPayload, onProgress?: (value: unknown) => void): StartedRequest {
    if (this.#pending.size >= APPLICATION_LIMITS.pendingCalls) throw new TooManyPendingError();
    const requestId = randomUUID();
    let settle: (outcome: RequestOutcome) => void = () => {};
    const done = new Promise<RequestOutcome>((resolve) => {
      settle = resolve;
    });
    const request: Pending = {
      requestId,
      body: { requestId, ...payload },
      sentEpoch: 0,
      timer: undefined,
      onProgress,
      settle,
    };
    request.timer = setTimeout(() => {
      this.options.log.warn({ request_id: requestId, type: payload.type }, 'callback deadline');
      this.cancel(requestId, 'deadline');
    }, this.options.deadlineMs);
    this.#pending.set(requestId, request);
    if (this.link.connected) this.#send(request);
    return { requestId, done };
  }

  /** Cancels a pending request (`application.cancel`); false when it is not pending. */
  cancel(requestId: string, reason: CancelReason): boolean {
    if (!this.#finish(requestId, { type: 'cancelled', reason })) return false;
    if (this.link.connected) {
      this.link
        .send(APPLICATION_TOPICS.cancel, { requestId, reason }, { requestId })
        .catch((error: unknown) =>
          this.options.log.warn({ err: error, request_id: requestId }, 'cancel not sent'),
        );
    }
    return true;
  }

  /** Cancels everything (the session ended). */
  cancelAll(reason: CancelReason): void {
    for (const requestId of [...this.#pending.keys()]) this.cancel(requestId, reason);
  }

  #send(request: Pending): void {
    request.sentEpoch = this.link.epoch;
    this.link
      .send(APPLICATION_TOPICS.request, request.body, { requestId: request.requestId })
      .catch((error: unknown) => {
        if (error instanceof PayloadTooLargeError) {
          this.#finish(request.requestId, {
            type: 'error',
            error: { code: 'payload_too_large', message: error.message },
          });
          return;
        }
        // Lost with the connection: sent again when the backend rejoins.
        request.sentEpoch = 0;
        this.options.log.warn({ err: error, request_id: request.requestId }, 'request not sent');
      });
  }

  /** `streamRequestId`: the `requestId` attribute of the stream that carried `body`. */
  #onResult(body: unknown, streamRequestId: string | undefined): void {
    const parsed = resultMessageSchema.safeParse(body);
    if (!parsed.success) {
      this.options.log.warn('malformed application.result ignored');
      return;
    }
    const message: ResultMessage = parsed.data;
    // The protocol carries the same requestId in the body and the stream attributes.
    if (streamRequestId !== message.requestId) {
      this.options.log.warn(
        { request_id: message.requestId, stream_request_id: streamRequestId ?? null },
        'application.result refused: its body and stream name different requests',
      );
      return;
    }
    const request = this.#pending.get(message.requestId);
    if (!request) {
      this.options.log.debug({ request_id: message.requestId }, 'late result ignored');
      return;
    }
    if (message.type === 'progress') {
      // A progressing call shares the session's lifetime.
      clearTimeout(request.timer);
      request.timer = undefined;
      request.onProgress?.(message.value ?? null);
      return;
    }
    if (message.type === 'result') {
      this.#finish(message.requestId, { type: 'result', value: message.value ?? null });
    } else {
      this.#finish(message.requestId, {
        type: 'error',
        error: message.error ?? { code: 'invalid_request', message: 'The backend failed.' },
      });
    }
  }

  #finish(requestId: string, outcome: RequestOutcome): boolean {
    const request = this.#pending.get(requestId);
    if (!request) return false;
    this.#pending.delete(requestId);
    clearTimeout(request.timer);
    request.settle(outcome);
    return true;
  }
}

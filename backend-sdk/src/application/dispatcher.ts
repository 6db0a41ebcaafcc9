/**
 * Running the worker's callbacks: each request reaches its handler once per process (the
 * ledger remembers it), answers go through the connection that currently carries it, and a
 * cancellation aborts the handler's signal and drops its late answer.
 */

import { readRequest, resultValue } from './callbacks.ts';
import { clipMessage, encodeEnvelope } from './envelope.ts';
import { ApplicationError, CallCancelledError } from './errors.ts';
import type { LedgerEntry, RequestLedger, ResultSink } from './ledger.ts';
import type { RequestBody, ResultBody, WireError } from './protocol.ts';
import type { ApplicationHandlers } from './types.ts';

/**
 * The error body sent for a failure: an {@link ApplicationError} keeps its code, anything
 * else a handler threw is `handler_error` with its message.
 *
 * @example
 * ```ts
 * wireError(new Error('no courier free')); // { code: 'handler_error', message: 'no courier free' }
 * ```
 */
export function wireError(error: unknown): WireError {
  if (error instanceof ApplicationError) {
    return { code: error.code, message: clipMessage(error.message) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'handler_error', message: clipMessage(message) };
}

/** What a dispatcher needs of its connection. */
export interface DispatcherDeps {
  room: string;
  handlers: ApplicationHandlers;
  ledger: RequestLedger;
  /** A sink answering to `identity` through this connection. */
  sinkFor(identity: string): ResultSink;
  /** Sends one result to `identity`; false when it could not be sent. */
  answer(identity: string, body: ResultBody): Promise<boolean>;
}

/**
 * Hands decoded `application.request` and `application.cancel` bodies to the handlers.
 *
 * @example
 * ```ts
 * const dispatcher = new CallbackDispatcher({ room, handlers, ledger, sinkFor, answer });
 * dispatcher.onRequest(body, agentIdentity);
 * ```
 */
export class CallbackDispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  onRequest(body: { requestId: string } & Record<string, unknown>, identity: string): void {
    const { requestId } = body;
    const existing = this.deps.ledger.get(this.deps.room, requestId);
    if (existing) {
      this.#redeliver(existing, identity);
      return;
    }
    let request: RequestBody;
    try {
      request = readRequest(body);
    } catch (error) {
      void this.deps.answer(identity, { requestId, type: 'error', error: wireError(error) });
      return;
    }
    if (request.type === 'interruption') this.#cancelRunning('worker_lost');
    const entry = this.deps.ledger.start(this.deps.room, requestId, this.deps.sinkFor(identity));
    void this.#run(entry, request);
  }

  /** Every callback of this room still running is cancelled (a lost job's, on resume). */
  #cancelRunning(reason: string): void {
    for (const { requestId, entry } of this.deps.ledger.runningIn(this.deps.room)) {
      entry.state = 'cancelled';
      entry.controller.abort(new CallCancelledError(requestId, reason));
    }
  }

  /** A request this process has seen: answer again, or carry on through this connection. */
  #redeliver(entry: LedgerEntry, identity: string): void {
    entry.sink = this.deps.sinkFor(identity);
    if (entry.state === 'done' && entry.final) {
      void this.#deliver(entry, entry.final);
    } else if (entry.state === 'running' && entry.lastProgress && !entry.lastProgress.delivered) {
      void this.#deliver(entry, entry.lastProgress.body);
    }
  }

  async #run(entry: LedgerEntry, request: RequestBody): Promise<void> {
    const signal = entry.controller.signal;
    const context = { requestId: request.requestId, signal };
    let final: ResultBody;
    try {
      const returned = await this.#invoke(entry, request, context);
      final = {
        requestId: request.requestId,
        type: 'result',
        value: resultValue(request.type, returned),
      };
    } catch (error) {
      final = { requestId: request.requestId, type: 'error', error: wireError(error) };
    }
    if (entry.state !== 'running') return; // cancelled meanwhile: a late answer is dropped
    entry.state = 'done';
    entry.final = final;
    await this.#deliver(entry, final);
  }

  #invoke(
    entry: LedgerEntry,
    request: RequestBody,
    context: { requestId: string; signal: AbortSignal },
  ): unknown {
    const missing = (what: string): never => {
      throw new ApplicationError({
        code: 'not_implemented',
        message: `this backend has no ${what} handler`,
      });
    };
    const handlers = this.deps.handlers;
    switch (request.type) {
      case 'input':
        return handlers.onInput ? handlers.onInput(request.input, context) : missing('onInput');
      case 'transcript':
        return handlers.onTranscript
          ? handlers.onTranscript(request.transcript, context)
          : missing('onTranscript');
      case 'prepare_reply':
        return handlers.onPrepareReply
          ? handlers.onPrepareReply(request.prepareReply, context)
          : missing('onPrepareReply');
      case 'interruption':
        return handlers.onInterruption?.(request.interruption, context);
      case 'tool': {
        if (!handlers.onTool) {
          throw new ApplicationError({
            code: 'unknown_tool',
            message: 'this backend has no onTool handler',
          });
        }
        const progress = (value: unknown) => this.#progress(entry, request.requestId, value);
        return handlers.onTool(request.tool, { ...context, progress });
      }
    }
  }

  async #progress(entry: LedgerEntry, requestId: string, value: unknown): Promise<void> {
    // Progress after the answer or a cancellation is late: the worker would ignore it.
    if (entry.state !== 'running') return;
    const body: ResultBody = { requestId, type: 'progress', value: resultValue('tool', value) };
    encodeEnvelope(body); // payload_too_large reaches the handler before anything is sent
    entry.lastProgress = { body, delivered: false };
    const delivered = await this.#deliver(entry, body);
    if (entry.lastProgress.body === body) entry.lastProgress.delivered = delivered;
  }

  onCancel(body: { requestId: string } & Record<string, unknown>): void {
    const entry = this.deps.ledger.get(this.deps.room, body.requestId);
    if (entry?.state !== 'running') return;
    entry.state = 'cancelled';
    entry.controller.abort(
      new CallCancelledError(body.requestId, String(body.reason ?? 'unknown')),
    );
  }

  /** Sends an entry's answer through its current sink, enforcing the envelope limit. */
  async #deliver(entry: LedgerEntry, body: ResultBody): Promise<boolean> {
    let checked = body;
    try {
      encodeEnvelope(body);
    } catch (error) {
      checked = { requestId: body.requestId, type: 'error', error: wireError(error) };
      if (entry.final === body) entry.final = checked;
    }
    return entry.sink.send(checked);
  }
}

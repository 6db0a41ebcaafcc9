/**
 * Commands from the backend to the worker (`application.command`) and their answers
 * (`application.command_result`), matched by `requestId`.
 */

import { randomUUID } from 'node:crypto';
import { ApplicationError } from './errors.ts';
import type { ApplicationLogger } from './logger.ts';
import type { CommandBody, ContextMessage, JsonValue, ReplyOutcome } from './protocol.ts';

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

/** Per-call limits of a command. */
export interface CommandOptions {
  /** Reject with `timeout` when no answer arrived by then. */
  timeoutMs?: number;
  /** Reject with `aborted` (the command may still take effect on the worker). */
  signal?: AbortSignal;
}

type Pending = {
  agent: string;
  resolve: (value: JsonValue) => void;
  reject: (error: ApplicationError) => void;
};

type CommandPayload = CommandBody extends infer C
  ? C extends { requestId: string }
    ? Omit<C, 'requestId'>
    : never
  : never;

/** Sends commands and settles each with its `application.command_result`. */
export class CommandChannel {
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly io: {
      send(body: CommandBody): Promise<void>;
      agentIdentity(): string | undefined;
      logger: ApplicationLogger;
      defaultTimeoutMs: number | undefined;
    },
  ) {}

  /** `update_context`: replaces instructions, appends messages, speaks nothing. */
  async updateContext(
    update: { instructions?: string; messages?: ContextMessage[] },
    options: CommandOptions,
  ): Promise<void> {
    const payload: CommandPayload = { command: 'update_context' };
    if (update.instructions !== undefined) payload.instructions = update.instructions;
    if (update.messages !== undefined) payload.messages = update.messages;
    await this.#call(payload, options, this.io.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
  }

  /** `request_reply`: resolves when the update finished playing. */
  async requestReply(
    id: string,
    options: CommandOptions & { instructions?: string },
  ): Promise<ReplyOutcome> {
    const payload: CommandPayload = { command: 'request_reply', id };
    if (options.instructions !== undefined) payload.instructions = options.instructions;
    const value = await this.#call(payload, options, undefined);
    const outcome = value as Partial<ReplyOutcome> | null;
    if (
      outcome === null ||
      typeof outcome !== 'object' ||
      typeof outcome.id !== 'string' ||
      typeof outcome.interrupted !== 'boolean' ||
      typeof outcome.spokenText !== 'string' ||
      outcome.completion !== 'worker_playout'
    ) {
      throw new ApplicationError({
        code: 'invalid_response',
        message:
          'the worker answered request_reply without {id, interrupted, spokenText, completion}',
      });
    }
    return {
      id: outcome.id,
      interrupted: outcome.interrupted,
      spokenText: outcome.spokenText,
      completion: 'worker_playout',
    };
  }

  /** `cancel_tool`: resolves true when a running call was cancelled. */
  async cancelTool(callId: string, options: CommandOptions): Promise<boolean> {
    const value = await this.#call(
      { command: 'cancel_tool', callId },
      options,
      this.io.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    );
    return (value as { cancelled?: unknown } | null)?.cancelled === true;
  }

  /** Settles the command an `application.command_result` answers. */
  onResult(body: { requestId: string } & Record<string, unknown>): void {
    const pending = this.#pending.get(body.requestId);
    if (!pending) {
      this.io.logger.debug?.(
        { requestId: body.requestId },
        'ignored a result of no pending command',
      );
      return;
    }
    if (body.type === 'result') {
      pending.resolve((body.value ?? null) as JsonValue);
    } else {
      const error = (body.error ?? {}) as { code?: unknown; message?: unknown };
      pending.reject(
        new ApplicationError({
          code: typeof error.code === 'string' ? error.code : 'invalid_response',
          message: typeof error.message === 'string' ? error.message : 'the command failed',
          requestId: body.requestId,
        }),
      );
    }
  }

  /** Rejects every command still waiting (the connection closed). */
  failAll(error: ApplicationError): void {
    for (const pending of [...this.#pending.values()]) pending.reject(error);
  }

  /** Rejects the commands sent to an Agent that left: it can no longer answer them. */
  failSentTo(identity: string): void {
    for (const pending of [...this.#pending.values()]) {
      if (pending.agent !== identity) continue;
      pending.reject(
        new ApplicationError({ code: 'session_ended', message: `the worker ${identity} left` }),
      );
    }
  }

  #call(
    payload: CommandPayload,
    options: CommandOptions,
    defaultTimeoutMs: number | undefined,
  ): Promise<JsonValue> {
    const requestId = randomUUID();
    const body = { requestId, ...payload } as CommandBody;
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    return new Promise<JsonValue>((resolve, reject) => {
      const settle = () => {
        this.#pending.delete(requestId);
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        settle();
        reject(
          new ApplicationError({ code: 'aborted', message: 'the command was aborted', requestId }),
        );
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              settle();
              reject(
                new ApplicationError({
                  code: 'timeout',
                  message: `the worker did not answer ${payload.command} within ${timeoutMs} ms`,
                  requestId,
                  retryable: true,
                }),
              );
            }, timeoutMs);
      if (options.signal?.aborted) {
        onAbort();
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(requestId, {
        agent: this.io.agentIdentity() ?? '',
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      // Sending throws payload_too_large (before anything leaves), session_ended or
      // connection_closed: the command then fails at once.
      this.io.send(body).catch((error: unknown) => {
        this.#pending.get(requestId)?.reject(
          error instanceof ApplicationError
            ? error
            : new ApplicationError({
                code: 'connection_error',
                message: 'the command could not be sent',
                requestId,
                cause: error,
              }),
        );
      });
    });
  }
}

/**
 * The backend's data-only connection to one application session: it joins the room with
 * the control credential, checks the worker speaks protocol 2, answers the worker's
 * callbacks through typed handlers and sends commands.
 */

import { type Participant, Room, RoomEvent, type TextStreamReader } from '@livekit/rtc-node';
import { CommandChannel } from './commands.ts';
import { CallbackDispatcher, wireError } from './dispatcher.ts';
import { decodeEnvelope, encodeEnvelope, isUuid } from './envelope.ts';
import { ApplicationError } from './errors.ts';
import { currentAgent, isApplicationAgent, waitForApplicationAgent } from './handshake.ts';
import { defaultLedger, type RequestLedger, type ResultSink } from './ledger.ts';
import { type ApplicationLogger, consoleLogger } from './logger.ts';
import {
  APPLICATION_PROTOCOL_VERSION,
  APPLICATION_VERSION_ATTRIBUTE,
  ENVELOPE_MAX_CHARS,
  type ResultBody,
  TOPICS,
} from './protocol.ts';
import type { ApplicationControl } from './start.ts';
import type { ApplicationHandlers, JoinOptions } from './types.ts';

const DEFAULT_AGENT_TIMEOUT_MS = 15_000;
// A UTF-16 code unit takes at most 3 bytes of UTF-8: streams past this many bytes cannot
// hold an acceptable body, so the transport stops them before they are buffered whole.
const MAX_STREAM_BYTES = ENVELOPE_MAX_CHARS * 3;

/**
 * One backend connection to an application session.
 *
 * @example
 * ```ts
 * const connection = await ApplicationConnection.join(control, {
 *   onInput: async (input) =>
 *     input.text.includes('agent') ? { action: 'reply', text: 'Connecting you now.' } : { action: 'handled' },
 *   onTool: async (call, { progress, signal }) => {
 *     await progress({ status: 'dispatching' });
 *     return dispatchCourier(call.arguments, { signal });
 *   },
 *   onTranscript: async (line) => db.transcripts.upsert(line.id, line),
 *   onPrepareReply: async ({ id }) => ({ instructions: `Announce update ${id} in one sentence.` }),
 * });
 * await connection.updateContext({ instructions: 'The order is now paid.' });
 * const heard = await connection.requestReply('courier-arrived');
 * await connection.close();
 * ```
 */
export class ApplicationConnection {
  readonly #room: Room;
  readonly #control: ApplicationControl;
  readonly #ledger: RequestLedger;
  readonly #logger: ApplicationLogger;
  readonly #commands: CommandChannel;
  readonly #dispatcher: CallbackDispatcher;
  #open = true;
  #closing: Promise<void> | undefined;

  private constructor(
    room: Room,
    control: ApplicationControl,
    handlers: ApplicationHandlers,
    options: JoinOptions,
  ) {
    this.#room = room;
    this.#control = control;
    this.#ledger = options.ledger ?? defaultLedger;
    this.#logger = options.logger ?? consoleLogger;
    this.#dispatcher = new CallbackDispatcher({
      room: control.room,
      handlers,
      ledger: this.#ledger,
      sinkFor: (identity) => new AgentSink(this, (body) => this.#answer(identity, body)),
      answer: (identity, body) => this.#answer(identity, body),
    });
    this.#commands = new CommandChannel({
      send: (body) => this.#sendToAgent(TOPICS.command, body, {}),
      agentIdentity: () => currentAgent(this.#room)?.identity,
      logger: this.#logger,
      defaultTimeoutMs: options.commandTimeoutMs,
    });
  }

  /**
   * Joins the session's room as the bound backend (data only), advertises protocol 2 and
   * waits for the worker. Fails closed with `unsupported_worker` when no Agent participant
   * advertising protocol 2 appears within `agentTimeoutMs`. Joining again with a fresh
   * `control` (from starting again with the same ids) receives the callbacks still pending;
   * those already answered in this process are answered again without calling a handler.
   *
   * @example
   * ```ts
   * const connection = await ApplicationConnection.join(control, handlers, {
   *   agentTimeoutMs: 10_000,
   *   logger: pino(),
   *   onDisconnected: () => rejoinLater(),
   * });
   * ```
   */
  static async join(
    control: ApplicationControl,
    handlers: ApplicationHandlers,
    options: JoinOptions = {},
  ): Promise<ApplicationConnection> {
    const room = new Room();
    const connection = new ApplicationConnection(room, control, handlers, options);
    connection.#listen(options);
    try {
      await room.connect(control.livekit_url, control.token, {
        autoSubscribe: false,
        dynacast: false,
        dataStream: { maxPayloadByteLength: MAX_STREAM_BYTES },
      });
    } catch (cause) {
      connection.#open = false;
      throw new ApplicationError({
        code: 'connection_error',
        message: `could not join ${control.room}`,
        retryable: true,
        cause,
      });
    }
    try {
      await room.localParticipant?.setAttributes({
        [APPLICATION_VERSION_ATTRIBUTE]: String(APPLICATION_PROTOCOL_VERSION),
      });
      await waitForApplicationAgent(
        room,
        options.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
        options.signal,
      );
    } catch (error) {
      await connection.#shutdown('the join failed');
      throw error;
    }
    return connection;
  }

  /** The room of the session. */
  get room(): string {
    return this.#control.room;
  }

  /** The identity of the worker's Agent participant, while one speaking protocol 2 is there. */
  get agentIdentity(): string | undefined {
    return currentAgent(this.#room)?.identity;
  }

  /** False once closed or disconnected. */
  get open(): boolean {
    return this.#open;
  }

  /**
   * Replaces the instructions and/or appends messages; nothing is spoken.
   *
   * @example
   * ```ts
   * await connection.updateContext({
   *   instructions: 'The customer is verified; you may discuss the order.',
   *   messages: [{ role: 'system', content: 'Order 42: paid, courier assigned.' }],
   * });
   * ```
   */
  async updateContext(
    update: {
      instructions?: string;
      messages?: { role: 'user' | 'assistant' | 'system'; content: string }[];
    },
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<void> {
    await this.#commands.updateContext(update, options);
  }

  /**
   * Queues a spoken update and resolves once it finished playing: how much was heard
   * (`interrupted`, `spokenText`). Reusing `id` in the same connection speaks once and
   * resolves with the first outcome. Rejects with `reply_invalidated` when new user input
   * arrived before it was spoken. Without `instructions`, the worker first asks
   * `onPrepareReply`. No time limit unless `timeoutMs` is given, since playout can be long.
   *
   * @example
   * ```ts
   * const { interrupted, spokenText } = await connection.requestReply('courier-arrived', {
   *   instructions: 'Tell the user the courier is at the door.',
   * });
   * ```
   */
  requestReply(
    id: string,
    options: { instructions?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ) {
    return this.#commands.requestReply(id, options);
  }

  /**
   * Cancels a running tool call by its `callId`; resolves true when one was running. Its
   * handler's `signal` aborts (the worker answers with `application.cancel`).
   *
   * @example
   * ```ts
   * const cancelled = await connection.cancelTool(call.callId);
   * ```
   */
  cancelTool(callId: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
    return this.#commands.cancelTool(callId, options);
  }

  /**
   * Leaves the room. Handlers still running on this connection are aborted and forgotten,
   * so a later join runs them again when the worker re-sends them; commands waiting for an
   * answer reject with `connection_closed`.
   *
   * @example
   * ```ts
   * await connection.close();
   * ```
   */
  close(): Promise<void> {
    for (const entry of this.#ledger.running((sink) => this.#owns(sink))) {
      entry.controller.abort(
        new ApplicationError({ code: 'connection_closed', message: 'the connection was closed' }),
      );
      this.#ledger.forget(entry);
    }
    return this.#shutdown('the connection was closed');
  }

  #shutdown(message: string): Promise<void> {
    this.#open = false;
    this.#commands.failAll(new ApplicationError({ code: 'connection_closed', message }));
    this.#closing ??= this.#room.disconnect().catch(() => {});
    return this.#closing;
  }

  #listen(options: JoinOptions): void {
    const room = this.#room;
    room.registerTextStreamHandler(TOPICS.request, (reader, from) => {
      this.#received(reader, from.identity, TOPICS.request, (body) =>
        this.#dispatcher.onRequest(body, from.identity),
      );
    });
    room.registerTextStreamHandler(TOPICS.cancel, (reader, from) => {
      this.#received(reader, from.identity, TOPICS.cancel, (body) =>
        this.#dispatcher.onCancel(body),
      );
    });
    room.registerTextStreamHandler(TOPICS.commandResult, (reader, from) => {
      this.#received(reader, from.identity, TOPICS.commandResult, (body) =>
        this.#commands.onResult(body),
      );
    });
    room.on(RoomEvent.ParticipantDisconnected, (participant: Participant) => {
      this.#commands.failSentTo(participant.identity);
    });
    room.on(RoomEvent.Disconnected, () => {
      if (!this.#open) return;
      // Running handlers keep running: a rejoin in this process redirects their answers.
      this.#shutdown('the connection to the session was lost');
      options.onDisconnected?.();
    });
  }

  /** Reads one stream from the Agent, refusing every other sender, and hands on its body. */
  #received(
    reader: TextStreamReader,
    identity: string,
    topic: string,
    handle: (body: { requestId: string } & Record<string, unknown>) => void,
  ): void {
    const attributeRequestId = reader.info.attributes?.requestId;
    if (!isApplicationAgent(this.#room.remoteParticipants.get(identity))) {
      this.#logger.warn(
        { identity, topic, requestId: attributeRequestId, room: this.room },
        'refused a message from a participant that is not the session Agent',
      );
      return;
    }
    reader
      .readAll()
      .then((text) => decodeEnvelope(text, attributeRequestId))
      .then(handle, (error: unknown) => {
        const code = error instanceof ApplicationError ? error.code : 'payload_too_large';
        this.#logger.warn(
          { identity, topic, requestId: attributeRequestId, code },
          'dropped an unreadable message',
        );
        // A request we can name gets an answer, so the worker need not wait for its deadline.
        if (topic === TOPICS.request && isUuid(attributeRequestId)) {
          const message =
            error instanceof ApplicationError
              ? error.message
              : `the stream was cut off (over ${ENVELOPE_MAX_CHARS} characters or interrupted)`;
          void this.#answer(identity, {
            requestId: attributeRequestId,
            type: 'error',
            error: { code, message },
          });
        }
      });
  }

  #owns(sink: ResultSink): boolean {
    return (sink as AgentSink).connection === this;
  }

  async #answer(identity: string, body: ResultBody): Promise<boolean> {
    try {
      await this.#sendTo(identity, TOPICS.result, body, { type: body.type });
      return true;
    } catch (error) {
      this.#logger.warn(
        { requestId: body.requestId, type: body.type, code: wireError(error).code },
        'could not send a result; it is sent again if the worker re-sends the request',
      );
      return false;
    }
  }

  async #sendToAgent(
    topic: string,
    body: { requestId: string },
    attributes: Record<string, string>,
  ): Promise<void> {
    const agent = currentAgent(this.#room);
    if (!agent) {
      throw new ApplicationError({
        code: 'session_ended',
        message: 'no worker speaking application protocol 2 is in the session',
      });
    }
    await this.#sendTo(agent.identity, topic, body, attributes);
  }

  async #sendTo(
    identity: string,
    topic: string,
    body: { requestId: string },
    attributes: Record<string, string>,
  ): Promise<void> {
    const text = encodeEnvelope(body);
    const local = this.#room.localParticipant;
    if (!this.#open || !local) {
      throw new ApplicationError({
        code: 'connection_closed',
        message: 'the connection is closed',
      });
    }
    await local.sendText(text, {
      topic,
      destinationIdentities: [identity],
      attributes: { ...attributes, requestId: body.requestId },
    });
  }
}

/** Answers through one connection to one Agent identity. */
class AgentSink implements ResultSink {
  constructor(
    readonly connection: ApplicationConnection,
    readonly send: (body: ResultBody) => Promise<boolean>,
  ) {}

  get open(): boolean {
    return this.connection.open;
  }
}

/**
 * One signed-in user's voice conversation: the application session this backend starts,
 * its data-only connection and the handlers that keep the business logic here (orders,
 * courier dispatch, a hand-off phrase, the transcript, spoken updates).
 */

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ApplicationConnection,
  ApplicationError,
  type ApplicationHandlers,
  type ApplicationHttpOptions,
  type ApplicationSessionPart,
  type InputDecision,
  type InputEvent,
  RequestLedger,
  startApplicationSession,
  type TranscriptEvent,
} from '../../backend-sdk/src/index.ts';
import type { User } from './auth.ts';
import type { OrderBook } from './orders.ts';
import { type Dispatch, runTool, TOOLS } from './tools.ts';

/** What a conversation needs from the server. */
export interface ConversationDeps {
  http: ApplicationHttpOptions;
  agentId: string;
  orders: OrderBook;
  dispatchMs: number;
  agentTimeoutMs: number;
  logger: Logger;
}

/** A spoken update about a finished dispatch, and how much of it the user heard. */
export interface Announcement {
  id: string;
  orderId: string;
  status: 'queued' | 'spoken' | 'interrupted' | 'not_spoken';
  spokenText?: string;
}

/** What the page shows of a conversation: what this backend stored, by id. */
export interface ConversationView {
  sessionId: string;
  connected: boolean;
  handoffRequested: boolean;
  transcript: TranscriptEvent[];
  announcements: Announcement[];
}

// "talk to a human", "speak with a person", "real agent please", "representative".
const HUMAN_PHRASE =
  /\b(talk|speak|chat)\b.*\b(human|person|people|someone real|real agent)\b|\brepresentative\b/i;
const HANDOFF_TEXT =
  'Of course. I have asked a member of our team to call you back within the hour.';
const ANNOUNCE_ATTEMPTS = 3;
const REJOIN_ATTEMPTS = 5;

/**
 * A started application session for one user.
 *
 * @example
 * ```ts
 * const conversation = await Conversation.start(user, deps);
 * reply(201, conversation.session); // the browser's part only; control stays here
 * ```
 */
export class Conversation {
  readonly #user: User;
  readonly #deps: ConversationDeps;
  readonly #chatSessionId = randomUUID();
  readonly #startRequestId = randomUUID();
  // Per conversation, so closing one never touches another's answered callbacks.
  readonly #ledger = new RequestLedger();
  readonly #transcript = new Map<string, TranscriptEvent>();
  readonly #announcements = new Map<string, Announcement>();
  readonly #dispatches = new Map<string, Dispatch>();
  #connection: ApplicationConnection | undefined;
  #session: ApplicationSessionPart | undefined;
  #handoffRequested = false;
  #closed = false;

  private constructor(user: User, deps: ConversationDeps) {
    this.#user = user;
    this.#deps = deps;
  }

  /**
   * Starts the session and joins it before the browser gets anything: a page only talks
   * to an Agent whose backend is connected.
   */
  static async start(user: User, deps: ConversationDeps): Promise<Conversation> {
    const conversation = new Conversation(user, deps);
    await conversation.#connect();
    return conversation;
  }

  /** The browser's part of the start answer. */
  get session(): ApplicationSessionPart {
    if (!this.#session) throw new Error('the conversation has not started');
    return this.#session;
  }

  /** What this backend stored for the page. */
  view(): ConversationView {
    return {
      sessionId: this.session.session_id,
      connected: this.#connection?.open ?? false,
      handoffRequested: this.#handoffRequested,
      transcript: [...this.#transcript.values()],
      announcements: [...this.#announcements.values()],
    };
  }

  /** Leaves the session; running tool calls are abandoned. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#connection?.close();
  }

  /** Start (or, with the same ids, start again for fresh credentials) and join. */
  async #connect(): Promise<void> {
    const { control, session } = await startApplicationSession(this.#deps.http, {
      agentId: this.#deps.agentId,
      chatSessionId: this.#chatSessionId,
      requestId: this.#startRequestId,
      application: { instructions: this.#instructions(), history: [], tools: TOOLS },
    });
    this.#session = session;
    this.#connection = await ApplicationConnection.join(control, this.#handlers(), {
      agentTimeoutMs: this.#deps.agentTimeoutMs,
      ledger: this.#ledger,
      logger: this.#deps.logger,
      onDisconnected: () => void this.#rejoin(),
    });
    this.#deps.logger.info(
      { user: this.#user.id, sessionId: session.session_id, agent: this.#connection.agentIdentity },
      'joined the application session',
    );
  }

  /**
   * The connection dropped (network, backend restart of the room link): start again with
   * the same ids for a fresh control credential and join again; the worker then re-sends
   * the callbacks still pending, so no tool call is lost.
   */
  async #rejoin(): Promise<void> {
    for (let attempt = 1; attempt <= REJOIN_ATTEMPTS && !this.#closed; attempt++) {
      try {
        await this.#connect();
        // Signed out while the rejoin was under way: leave again.
        if (this.#closed) await this.#connection?.close();
        return;
      } catch (error) {
        const code = error instanceof ApplicationError ? error.code : 'unknown';
        this.#deps.logger.warn({ user: this.#user.id, attempt, code }, 'rejoin failed');
        // A 409 means the session ended (or was never this one): nothing to rejoin.
        if (error instanceof ApplicationError && error.status === 409) return;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
      }
    }
  }

  #instructions(): string {
    const orders = this.#deps.orders.list(this.#user.id).map((order) => order.orderId);
    return [
      'You are the voice order desk of Bean There, a coffee shop that delivers.',
      `You are speaking with ${this.#user.name}, who is signed in; their orders are ${orders.join(', ') || 'none'}.`,
      'Use lookup_order to answer questions about an order and dispatch_courier when they ask to send a packed order.',
      'A dispatch takes a while: say it is on its way; you will announce the courier separately.',
      'Answer in one or two short spoken sentences.',
    ].join(' ');
  }

  #handlers(): ApplicationHandlers {
    return {
      onInput: (input) => this.#onInput(input),
      onTool: (call, context) =>
        runTool(call, context, {
          user: this.#user,
          orders: this.#deps.orders,
          dispatchMs: this.#deps.dispatchMs,
          onDispatched: (dispatch) => void this.#announce(dispatch),
        }),
      onTranscript: (line) => {
        // Idempotent by id: a line re-delivered after a rejoin replaces itself.
        this.#transcript.set(line.id, line);
      },
      onPrepareReply: ({ id }) => ({ instructions: this.#announcementInstructions(id) }),
    };
  }

  #onInput(input: InputEvent): InputDecision {
    if (HUMAN_PHRASE.test(input.text)) {
      // Handled here, not by the model: a fixed answer, and the hand-off is recorded.
      this.#handoffRequested = true;
      this.#deps.logger.info({ user: this.#user.id, inputId: input.id }, 'hand-off requested');
      return { action: 'reply', text: HANDOFF_TEXT };
    }
    // Everything else goes to the model, with the current state of the user's orders.
    const orders = this.#deps.orders
      .list(this.#user.id)
      .map((order) => `${order.orderId}: ${order.status.replace(/_/g, ' ')}`)
      .join('; ');
    return {
      action: 'reply',
      text: input.text,
      instructions: `Answer ${this.#user.name}. Current orders: ${orders || 'none'}.`,
    };
  }

  /** Queues the spoken update of a finished dispatch, asking again if the user spoke first. */
  async #announce(dispatch: Dispatch): Promise<void> {
    for (let attempt = 1; attempt <= ANNOUNCE_ATTEMPTS && !this.#closed; attempt++) {
      const id = `dispatch-${dispatch.orderId}-${randomUUID().slice(0, 8)}`;
      const announcement: Announcement = { id, orderId: dispatch.orderId, status: 'queued' };
      this.#announcements.set(id, announcement);
      this.#dispatches.set(id, dispatch);
      try {
        const connection = this.#connection;
        if (!connection?.open)
          throw new ApplicationError({ code: 'connection_closed', message: 'not connected' });
        const outcome = await connection.requestReply(id);
        announcement.status = outcome.interrupted ? 'interrupted' : 'spoken';
        announcement.spokenText = outcome.spokenText;
        return;
      } catch (error) {
        const code = error instanceof ApplicationError ? error.code : 'unknown';
        announcement.status = 'not_spoken';
        this.#deps.logger.info({ user: this.#user.id, id, code }, 'spoken update not played');
        // The user spoke first (or the link dropped): the update is still news, ask again.
        if (!['reply_invalidated', 'connection_closed', 'session_ended'].includes(code)) return;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  #announcementInstructions(id: string): string {
    const dispatch = this.#dispatches.get(id);
    if (!dispatch) return 'Give the user a short update on their order.';
    return (
      `In one short sentence, tell ${this.#user.name} that courier ${dispatch.courier} has ` +
      `order ${dispatch.orderId} and will arrive in about ${dispatch.etaMinutes} minutes.`
    );
  }
}

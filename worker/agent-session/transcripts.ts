import { TOPIC_DECLINED, TOPIC_ERROR, TOPIC_TRANSCRIPT } from '@awp/protocol';
import type { llm } from '@livekit/agents';
import type { Room } from '@livekit/rtc-node';
import { v7 as uuidv7 } from 'uuid';
import type { Logger, WorkerSessionStore } from '../../src/worker-boundary/index.ts';
import { MessageIds } from './message-ids.ts';

const PERSIST_ATTEMPTS = 3;

/**
 * Finalized turns: each user and agent message of the session's history is persisted with
 * a durable id (retries reuse it, so the row is written once) and then published on
 * `awp.transcript`. An interrupted agent reply carries only what was played (our playout
 * accounting, `interruptedPlayout`).
 */
export class TranscriptPublisher {
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly room: Room,
    private readonly sessions: Pick<WorkerSessionStore, 'addTurn'>,
    private readonly sessionId: string,
    private readonly log: Logger,
    /** Each turn once persisted (application sessions tell their backend). */
    private readonly onPersisted?: (turn: {
      id: string;
      role: 'user' | 'agent';
      text: string;
      interrupted: boolean;
    }) => void,
    /** Durable ids by the framework's item id (shared with the application's input gate). */
    private readonly ids = new MessageIds(),
  ) {}

  itemAdded(item: llm.ChatItem): void {
    if (item.type !== 'message') return;
    if (item.role !== 'user' && item.role !== 'assistant') return;
    // Interrupted replies are persisted from our playout accounting (interruptedPlayout).
    if (item.role === 'assistant' && item.interrupted) return;
    const text = (item.textContent ?? '').trim();
    if (text === '') return;
    this.#persist({
      id: this.ids.of(item.id),
      sessionId: this.sessionId,
      role: item.role === 'user' ? 'user' : 'agent',
      text,
      interrupted: false,
    });
  }

  /**
   * An agent reply was interrupted after `spoken` was said (PlayoutLedger): that part is
   * the agent's turn, marked interrupted. The framework's own interrupted message is not
   * used (its synchronized text came back empty with sentence-by-sentence synthesis).
   */
  interruptedPlayout(spoken: string): void {
    if (spoken === '') return;
    this.#persist({
      id: uuidv7(),
      sessionId: this.sessionId,
      role: 'agent',
      text: spoken,
      interrupted: true,
    });
  }

  #persist(turn: {
    id: string;
    sessionId: string;
    role: 'user' | 'agent';
    text: string;
    interrupted: boolean;
  }): void {
    const { id, text } = turn;
    // In order, so the client sees turns as they happened.
    this.#chain = this.#chain.then(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.sessions.addTurn(turn);
          break;
        } catch (error) {
          if (attempt >= PERSIST_ATTEMPTS) {
            this.log.error({ err: error, message_id: id }, 'transcript turn not persisted');
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
      this.onPersisted?.({ id, role: turn.role, text, interrupted: turn.interrupted });
      await this.#send(TOPIC_TRANSCRIPT, { id, role: turn.role, text, final: true });
    });
  }

  declined(reason: string): void {
    this.#chain = this.#chain.then(() => this.#send(TOPIC_DECLINED, { reason }));
  }

  error(payload: { code: string; detail: string; retryable: boolean }): void {
    this.#chain = this.#chain.then(() => this.#send(TOPIC_ERROR, payload));
  }

  /** Resolves once every turn so far is persisted and sent. */
  settled(): Promise<void> {
    return this.#chain;
  }

  async #send(topic: string, body: object): Promise<void> {
    try {
      await this.room.localParticipant?.sendText(JSON.stringify(body), { topic });
    } catch (error) {
      // The user may have left; the turn is persisted either way.
      this.log.warn({ err: error, topic }, 'could not publish to the room');
    }
  }
}

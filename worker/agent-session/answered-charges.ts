import { voice } from '@livekit/agents';

/** Discarded preemptive replies are never released: at most this many questions are kept. */
const MAX_HELD_QUESTIONS = 16;

/**
 * Charges a model call once the user message it answers is in the conversation. The
 * framework's preemptive generation asks the model at the user's pause, before the turn is
 * committed, and adds that user message to the conversation only when it keeps the reply:
 * a reply it discarded (the user spoke on, and the whole question was asked again) leaves
 * its question out, so its call is never charged. A call answering a message already in
 * the conversation, or none (a greeting), is charged at once.
 */
export class AnsweredCharges {
  /** Charges waiting for their question, by the question's message id. */
  readonly #held = new Map<string, (() => void)[]>();

  constructor(private readonly inConversation: (messageId: string) => boolean) {}

  /** A model call answering `messageId` (undefined: no user message) costs `charge()`. */
  answered(messageId: string | undefined, charge: () => void): void {
    if (messageId === undefined || this.inConversation(messageId)) {
      charge();
      return;
    }
    const held = this.#held.get(messageId) ?? [];
    held.push(charge);
    this.#held.set(messageId, held);
    for (const oldest of this.#held.keys()) {
      if (this.#held.size <= MAX_HELD_QUESTIONS) break;
      this.#held.delete(oldest);
    }
  }

  /** `messageId` entered the conversation: the calls that answered it are charged. */
  committed(messageId: string): void {
    const held = this.#held.get(messageId);
    if (!held) return;
    this.#held.delete(messageId);
    for (const charge of held) charge();
  }
}

/**
 * The charges of `session`'s model calls, made as its conversation grows: a user message
 * is in the conversation once the session added it, or when the Agent started with it (a
 * resumed session).
 */
export function chargeAnsweredCalls(voiceSession: voice.AgentSession): AnsweredCharges {
  const charges = new AnsweredCharges(
    (id) => voiceSession.history.getById(id) !== undefined || agentContextHas(voiceSession, id),
  );
  voiceSession.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type === 'message' && item.role === 'user') charges.committed(item.id);
  });
  return charges;
}

/** Whether the running Agent's context holds `id` (none once the session has stopped). */
function agentContextHas(voiceSession: voice.AgentSession, id: string): boolean {
  try {
    return voiceSession.currentAgent.chatCtx.getById(id) !== undefined;
  } catch {
    return false;
  }
}

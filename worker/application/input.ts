import { llm, voice } from '@livekit/agents';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { MessageIds } from '../agent-session/message-ids.ts';
import type { RequestTracker } from './requests.ts';

/** What the backend decided about one user input. */
export type InputDecision =
  | { action: 'model' }
  | { action: 'handled' }
  | { action: 'reply'; text: string; instructions: string | undefined };

/**
 * The `input` callback: each finalized user input goes to the backend before the model
 * answers. `handled` says nothing, `reply` speaks the backend's text (or lets the model
 * answer guided by its instructions); an error, a malformed answer or the deadline lets the
 * model answer normally.
 */
export class InputGate {
  constructor(
    private readonly requests: RequestTracker,
    private readonly log: Logger,
    /** Runs first for every user input (new turn, queued updates invalidated). */
    private readonly onInput: () => void,
  ) {}

  /** `messageId`: the durable id the user message is persisted and reported under. */
  async decide(
    text: string,
    modality: 'audio' | 'text',
    messageId: string,
  ): Promise<InputDecision> {
    this.onInput();
    let started: ReturnType<RequestTracker['start']>;
    try {
      started = this.requests.start({
        type: 'input',
        input: { id: messageId, text, modality },
      });
    } catch (error) {
      this.log.warn({ err: error }, 'input callback not sent; the model answers');
      return { action: 'model' };
    }
    const outcome = await started.done;
    if (outcome.type !== 'result') {
      this.log.info({ outcome: outcome.type }, 'no input decision; the model answers');
      return { action: 'model' };
    }
    const value = outcome.value as {
      action?: unknown;
      text?: unknown;
      instructions?: unknown;
    } | null;
    if (value?.action === 'handled') return { action: 'handled' };
    if (value?.action === 'reply' && typeof value.text === 'string') {
      return {
        action: 'reply',
        text: value.text,
        instructions: typeof value.instructions === 'string' ? value.instructions : undefined,
      };
    }
    this.log.warn('malformed input decision; the model answers');
    return { action: 'model' };
  }

  /**
   * Carries out a `handled` or `reply` decision: the user's message joins the context and
   * the transcript (the framework skips both when the turn stops), then the reply is spoken.
   */
  async apply(
    voiceSession: voice.AgentSession,
    message: llm.ChatMessage,
    decision: Exclude<InputDecision, { action: 'model' }>,
  ): Promise<void> {
    const agent = voiceSession.currentAgent;
    const chatCtx = agent.chatCtx.copy();
    chatCtx.insert(message);
    await agent.updateChatCtx(chatCtx);
    voiceSession._conversationItemAdded(message);
    if (decision.action === 'handled') return;
    if (decision.instructions === undefined) {
      voiceSession.say(decision.text, { allowInterruptions: true });
    } else {
      voiceSession.generateReply({
        instructions: `${decision.instructions}\n\nThe application's answer to use: ${decision.text}`,
      });
    }
  }
}

/**
 * The Agent of an application session: the backend's instructions and history, its tools,
 * and every completed spoken turn passed through the `input` callback before the model.
 */
export class ApplicationAgent extends voice.Agent {
  constructor(
    options: voice.AgentOptions<unknown>,
    private readonly gate: InputGate,
    private readonly messageIds: MessageIds,
  ) {
    super(options);
  }

  override async onUserTurnCompleted(
    _chatCtx: llm.ChatContext,
    newMessage: llm.ChatMessage,
  ): Promise<void> {
    const text = newMessage.textContent ?? '';
    if (text.trim() === '') return;
    // The framework persists this same message object: its durable id is the input's id.
    const decision = await this.gate.decide(text, 'audio', this.messageIds.of(newMessage.id));
    if (decision.action === 'model') return;
    await this.gate.apply(this.session, newMessage, decision);
    throw new voice.StopResponse();
  }
}

/** A user message of typed text, for decisions taken before the framework sees it. */
export function userMessage(text: string): llm.ChatMessage {
  return llm.ChatMessage.create({ role: 'user', content: text });
}

import { type llm, voice } from '@livekit/agents';

/**
 * Keeps the model's chat context honest about interrupted replies: after a barge-in it
 * must hold what the user actually heard (our playout accounting, PlayoutLedger), not the
 * whole generated reply and not nothing.
 *
 * LiveKit adds an interrupted reply to the context from its synchronized transcript, which
 * comes back empty with sentence-by-sentence synthesis: it then adds nothing, and the
 * model's next request lacked the agent's turn. Here, once the interrupted speech is done,
 * its message (if LiveKit added one) gets the spoken text; otherwise the spoken text is
 * inserted at the time the reply started playing.
 */
export class SpokenContext {
  /** Speech handles not done yet, oldest first. */
  readonly #handles: voice.SpeechHandle[] = [];
  /** When the agent last started speaking (epoch ms, the context's clock). */
  #speakingSince = Date.now();

  constructor(private readonly voiceSession: voice.AgentSession) {
    voiceSession.on(voice.AgentSessionEventTypes.SpeechCreated, (event) => {
      const handle = event.speechHandle;
      this.#handles.push(handle);
      handle.addDoneCallback(() => {
        const index = this.#handles.indexOf(handle);
        if (index >= 0) this.#handles.splice(index, 1);
      });
    });
    voiceSession.on(voice.AgentSessionEventTypes.AgentStateChanged, (event) => {
      if (event.newState === 'speaking') this.#speakingSince = Date.now();
    });
  }

  /**
   * The reply playing now was interrupted after `spoken`. Resolves once the chat context
   * holds it (immediately when nothing was spoken).
   */
  async interrupted(spoken: string): Promise<void> {
    const startedAt = this.#speakingSince;
    const handle = this.#handles.find((h) => h.interrupted) ?? this.#handles[0];
    if (handle) await new Promise<void>((resolve) => handle.addDoneCallback(() => resolve()));
    const added = handle?.chatItems.find(
      (item): item is llm.ChatMessage =>
        item.type === 'message' && item.role === 'assistant' && item.interrupted,
    );
    if (spoken === '') return;
    if (added) {
      // The same object sits in the agent's context: correcting it corrects the context.
      added.content = [spoken];
      return;
    }
    const agent = this.voiceSession.currentAgent;
    const context = agent.chatCtx.copy();
    context.addMessage({
      role: 'assistant',
      content: spoken,
      interrupted: true,
      createdAt: startedAt,
    });
    await agent.updateChatCtx(context);
  }
}

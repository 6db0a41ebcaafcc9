import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { LlmEvent, LlmToolCall, LlmUsage } from '../provider.ts';

type FinishReason = Extract<LlmEvent, { type: 'done' }>['finishReason'];

/**
 * Turns Chat Completions chunks into our events: text deltas at once, tool calls whole
 * once the choice finished (their `arguments` arrive as fragments keyed by `index`),
 * usage from the final choice-less chunk.
 */
export class ChatChunkAssembler {
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();
  #finish: FinishReason | undefined;
  #usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  /** Tool calls yielded so far. */
  #emitted = 0;

  /** Whether the choice has finished (a `finish_reason` arrived). */
  get finished(): boolean {
    return this.#finish !== undefined;
  }

  /** Events for one chunk; `content` says whether it carried text or tool-call data. */
  push(chunk: ChatCompletionChunk): { events: LlmEvent[]; content: boolean } {
    const events: LlmEvent[] = [];
    let content = false;
    if (chunk.usage) {
      this.#usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    // We ask for one choice (no `n`); servers answer with index 0.
    const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
    if (!choice) return { events, content };
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      events.push({ type: 'text', delta: delta.content });
      content = true;
    }
    for (const fragment of delta.tool_calls ?? []) {
      content = true;
      const call = this.#calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      this.#calls.set(fragment.index, call);
    }
    if (choice.finish_reason && this.#finish === undefined) {
      this.#finish = mapFinishReason(choice.finish_reason);
      events.push(...this.#takeCalls());
    }
    return { events, content };
  }

  /** The closing `done` event (plus tool calls of a server that never sent a finish reason). */
  finish(): LlmEvent[] {
    const calls = this.#takeCalls();
    let finishReason = this.#finish ?? 'stop';
    // Some servers (Ollama, older llama.cpp) say `stop` after a tool-calling answer.
    if (this.#emitted > 0 && finishReason === 'stop') finishReason = 'tool_calls';
    return [...calls, { type: 'done', finishReason, usage: this.#usage }];
  }

  #takeCalls(): LlmEvent[] {
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    this.#calls.clear();
    this.#emitted += calls.length;
    return calls.map(([index, call]): LlmEvent => {
      const toolCall: LlmToolCall = {
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments === '' ? '{}' : call.arguments,
      };
      return { type: 'tool_call', call: toolCall };
    });
  }
}

function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      // `stop`, `content_filter` and server-specific reasons end the answer normally.
      return 'stop';
  }
}

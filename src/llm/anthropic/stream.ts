import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { LlmEvent, LlmReasoningBlock, LlmUsage } from '../provider.ts';

type FinishReason = Extract<LlmEvent, { type: 'done' }>['finishReason'];

type OpenBlock =
  | { type: 'text' }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'other' };

/**
 * Turns Messages stream events into our events: `text_delta` at once, a `tool_use` block
 * whole at its `content_block_stop` (its input arrives as `input_json_delta` fragments),
 * usage from `message_start` (input) and `message_delta` (cumulative output), thinking
 * blocks kept to be sent back.
 */
export class MessageEventAssembler {
  readonly #blocks = new Map<number, OpenBlock>();
  readonly #reasoning: LlmReasoningBlock[] = [];
  #usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  #stopReason: string | undefined;
  #stopped = false;

  /** Whether `message_stop` arrived. */
  get finished(): boolean {
    return this.#stopped;
  }

  /** Events for one stream event; `content` says whether it carried answer data. */
  push(event: RawMessageStreamEvent): { events: LlmEvent[]; content: boolean } {
    const events: LlmEvent[] = [];
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.#usage = {
          inputTokens:
            (usage.input_tokens ?? 0) +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0),
          outputTokens: usage.output_tokens ?? 0,
        };
        return { events, content: false };
      }
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') {
          this.#blocks.set(event.index, { type: 'text' });
          if (block.text !== '') events.push({ type: 'text', delta: block.text });
        } else if (block.type === 'tool_use') {
          this.#blocks.set(event.index, {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            json: '',
          });
        } else if (block.type === 'thinking') {
          this.#blocks.set(event.index, {
            type: 'thinking',
            thinking: block.thinking,
            signature: block.signature,
          });
        } else if (block.type === 'redacted_thinking') {
          this.#blocks.set(event.index, { type: 'redacted_thinking', data: block.data });
        } else {
          this.#blocks.set(event.index, { type: 'other' });
        }
        return { events, content: true };
      }
      case 'content_block_delta': {
        const block = this.#blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta' && delta.text !== '') {
          events.push({ type: 'text', delta: delta.text });
        } else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
          block.json += delta.partial_json;
        } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') {
          block.thinking += delta.thinking;
        } else if (delta.type === 'signature_delta' && block?.type === 'thinking') {
          block.signature += delta.signature;
        }
        return { events, content: true };
      }
      case 'content_block_stop': {
        const block = this.#blocks.get(event.index);
        this.#blocks.delete(event.index);
        if (block?.type === 'tool_use') {
          events.push({
            type: 'tool_call',
            call: {
              id: block.id,
              name: block.name,
              arguments: block.json === '' ? '{}' : block.json,
            },
          });
        } else if (block?.type === 'thinking' || block?.type === 'redacted_thinking') {
          this.#reasoning.push(
            block.type === 'thinking'
              ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
              : { type: 'redacted_thinking', data: block.data },
          );
        }
        return { events, content: true };
      }
      case 'message_delta': {
        if (event.delta.stop_reason) this.#stopReason = event.delta.stop_reason;
        const usage = event.usage;
        if (usage.output_tokens != null) this.#usage.outputTokens = usage.output_tokens;
        if (usage.input_tokens != null) {
          this.#usage.inputTokens =
            usage.input_tokens +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0);
        }
        return { events, content: true };
      }
      case 'message_stop':
        this.#stopped = true;
        return { events, content: true };
      default:
        return { events, content: false };
    }
  }

  /** The closing `done` event. */
  finish(): LlmEvent {
    return {
      type: 'done',
      finishReason: mapStopReason(this.#stopReason),
      usage: { ...this.#usage },
      ...(this.#reasoning.length > 0 ? { reasoning: [...this.#reasoning] } : {}),
    };
  }
}

function mapStopReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    default:
      // end_turn, stop_sequence, pause_turn, refusal: the answer ended.
      return 'stop';
  }
}

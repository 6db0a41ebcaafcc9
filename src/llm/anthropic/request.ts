import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { LlmChatRequest, LlmMessage, ThinkingLevel } from '../provider.ts';

/** `max_tokens` when the caller names none (Anthropic requires it). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The user turn put before a conversation that opens with the assistant. */
export const CONVERSATION_START = '[Start a new chat]';

/** Thinking budgets per level; `max_tokens` is the budget plus the answer's own allowance. */
export const THINKING_BUDGET_TOKENS: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = {
  low: 1024,
  medium: 4096,
  high: 16_384,
};

/**
 * Our messages as Anthropic messages. System messages become the top-level `system`
 * (joined in order), tool results `tool_result` blocks of a user message, assistant tool
 * calls `tool_use` blocks (after any reasoning to send back). Consecutive user-side turns
 * (tool results, then a user message) are merged into one user message, as the API wants
 * results first and roles alternating.
 */
export function toAnthropicMessages(messages: readonly LlmMessage[]): {
  system: string | undefined;
  messages: MessageParam[];
} {
  const system: string[] = [];
  const out: MessageParam[] = [];
  const userBlocks = (): ContentBlockParam[] => {
    const last = out.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) return last.content;
    const blocks: ContentBlockParam[] = [];
    out.push({ role: 'user', content: blocks });
    return blocks;
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        userBlocks().push({ type: 'text', text: message.content });
        break;
      case 'tool':
        userBlocks().push({
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
        });
        break;
      case 'assistant': {
        const blocks: ContentBlockParam[] = [...(message.reasoning ?? [])];
        // The API refuses empty text blocks.
        if (message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.name,
            input: parseInput(call.arguments),
          });
        }
        if (blocks.length > 0) out.push({ role: 'assistant', content: blocks });
        break;
      }
    }
  }
  // The API refuses a conversation that opens with the assistant (an Agent's greeting):
  // a short user turn goes first.
  if (out[0]?.role === 'assistant') {
    out.unshift({ role: 'user', content: [{ type: 'text', text: CONVERSATION_START }] });
  }
  // A lone text block is sent as a plain string, the API's simplest documented form.
  for (const message of out) {
    const blocks = message.content;
    if (Array.isArray(blocks) && blocks.length === 1 && blocks[0]?.type === 'text') {
      message.content = blocks[0].text;
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

function parseInput(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * With thinking on, the API wants the last assistant turn of a tool-use loop to start with
 * the thinking block it produced. When the caller did not keep it, the continuation runs
 * without thinking rather than failing.
 */
function canThink(messages: readonly LlmMessage[]): boolean {
  if (messages.at(-1)?.role !== 'tool') return true;
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  return lastAssistant?.role === 'assistant' && (lastAssistant.reasoning?.length ?? 0) > 0;
}

/** The streamed Messages body of a request (`temperature` is not sent, see below). */
export function toMessagesBody(request: LlmChatRequest): MessageCreateParamsStreaming {
  const { system, messages } = toAnthropicMessages(request.messages);
  const answerTokens = request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const level = request.thinkingLevel ?? 'off';
  const thinking = level !== 'off' && canThink(request.messages);
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: thinking ? THINKING_BUDGET_TOKENS[level] + answerTokens : answerTokens,
    messages,
    stream: true,
  };
  if (system !== undefined) body.system = system;
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): Tool => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters as Tool['input_schema'],
      }),
    );
    if (request.toolChoice === 'none') body.tool_choice = { type: 'none' };
  }
  if (thinking) {
    body.thinking = { type: 'enabled', budget_tokens: THINKING_BUDGET_TOKENS[level] };
  }
  // `temperature` is not sent: the Messages API (SDK 1.x) no longer lists it, and thinking
  // refuses it anyway.
  return body;
}

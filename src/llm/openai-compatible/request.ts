import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { LlmChatRequest, LlmMessage, LlmToolDefinition } from '../provider.ts';
import { nearestThinkingLevel, THINKING_LEVEL_ORDER } from '../thinking.ts';
import { isOpenAiReasoningModel } from './models.ts';

/** Our messages as Chat Completions messages (assistant tool calls, tool results by id). */
export function toChatMessages(messages: readonly LlmMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toChatMessage);
}

function toChatMessage(message: LlmMessage): ChatCompletionMessageParam {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
  if (message.role !== 'assistant') return { role: message.role, content: message.content };
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: message.content };
  return {
    role: 'assistant',
    // The documented shape of a tool-calling turn without text is `content: null`.
    content: message.content === '' ? null : message.content,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

export function toChatTools(tools: readonly LlmToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * The streamed Chat Completions body of a request. `thinkingLevel` becomes
 * `reasoning_effort` on reasoning models (omitted for `off`, and on other models); reasoning models get `max_completion_tokens`
 * and no `temperature`, other models `max_tokens`.
 */
export function toChatCompletionBody(request: LlmChatRequest): ChatCompletionCreateParamsStreaming {
  const reasoning = isOpenAiReasoningModel(request.model);
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toChatMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = toChatTools(request.tools);
    if (request.toolChoice === 'none') body.tool_choice = 'none';
  }
  // A model without reasoning runs any asked level as `off`, the nearest it supports.
  const level = nearestThinkingLevel(
    reasoning ? THINKING_LEVEL_ORDER : ['off'],
    request.thinkingLevel ?? 'off',
  );
  if (level !== 'off') body.reasoning_effort = level;
  if (request.maxOutputTokens !== undefined) {
    if (reasoning) body.max_completion_tokens = request.maxOutputTokens;
    else body.max_tokens = request.maxOutputTokens;
  }
  if (request.temperature !== undefined && !reasoning) body.temperature = request.temperature;
  return body;
}

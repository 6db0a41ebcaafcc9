import { THINKING_BUDGET_TOKENS } from './anthropic/request.ts';
import type { LlmChatRequest, LlmProviderName } from './provider.ts';

/** Tokens a chat template may add per message (role markers, separators). */
const TOKENS_PER_MESSAGE = 8;
/** Tokens a vendor may add to a whole request (its own preamble). */
const TOKENS_PER_REQUEST = 64;

/**
 * An upper bound of the tokens one call can be billed for, to reserve credit before it:
 * input at most one token per UTF-8 byte (every BPE token covers at least one byte) plus
 * template overhead; output at most what the adapter allows the vendor to generate,
 * including the thinking budget Anthropic adds to `max_tokens`. Tool definitions and the
 * arguments of earlier tool calls count as input, one token per byte of their JSON.
 */
export function usageBound(
  provider: LlmProviderName,
  request: LlmChatRequest & { maxOutputTokens: number },
): { inputTokens: number; outputTokens: number } {
  let inputTokens = TOKENS_PER_REQUEST;
  for (const message of request.messages) {
    inputTokens += Buffer.byteLength(message.content, 'utf8') + TOKENS_PER_MESSAGE;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        inputTokens += bytes(call.name) + bytes(call.arguments) + TOKENS_PER_MESSAGE;
      }
    }
  }
  // Tool definitions are sent as JSON (vendors render them into the prompt).
  for (const tool of request.tools ?? []) {
    inputTokens += bytes(JSON.stringify(tool)) + TOKENS_PER_MESSAGE;
  }
  const level = request.thinkingLevel ?? 'off';
  const thinking = provider === 'anthropic' && level !== 'off' ? THINKING_BUDGET_TOKENS[level] : 0;
  return { inputTokens, outputTokens: request.maxOutputTokens + thinking };
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

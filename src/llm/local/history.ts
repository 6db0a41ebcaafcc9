import type { ChatHistoryItem } from 'node-llama-cpp';
import type { LlmMessage } from '../provider.ts';

/**
 * Our messages as node-llama-cpp chat history. The embedded model runs without tools, so
 * tool calls of earlier turns (made by another model) are left out and their results are
 * given as user text, keeping the facts in the conversation.
 */
export function toChatHistory(messages: readonly LlmMessage[]): ChatHistoryItem[] {
  return messages.map((message): ChatHistoryItem => {
    if (message.role === 'system') return { type: 'system', text: message.content };
    if (message.role === 'user') return { type: 'user', text: message.content };
    if (message.role === 'tool') return { type: 'user', text: `Tool result: ${message.content}` };
    return { type: 'model', response: [message.content] };
  });
}

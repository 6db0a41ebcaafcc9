import { llm } from '@livekit/agents';
import type { ContextUpdate } from '../../src/worker-boundary/index.ts';
import type { StoredTurn } from '../agent-session/session-resume.ts';

/** A message of the model's context, as the backend or the transcript gives it. */
interface ContextMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/**
 * An application session's chat context when a job starts it: the backend's start history,
 * then (a resumed session) the stored transcript turns with the messages the backend
 * appended by `update_context` among them, each after the turns that were stored when it
 * arrived, as the lost job had them.
 */
export function applicationChatContext(
  history: ContextMessage[],
  soFar: StoredTurn[],
  update: ContextUpdate | null,
): llm.ChatContext {
  const chatCtx = llm.ChatContext.empty();
  const add = (message: ContextMessage) =>
    chatCtx.addMessage({ role: message.role, content: message.content });
  for (const message of history) add(message);
  const appended = update?.messages ?? [];
  let next = 0;
  const addAppendedAfter = (turns: number) => {
    while (next < appended.length && (appended[next]?.afterTurns ?? 0) <= turns) {
      add(appended[next] as ContextMessage);
      next += 1;
    }
  };
  addAppendedAfter(0);
  soFar.forEach((turn, index) => {
    add({ role: turn.role === 'user' ? 'user' : 'assistant', content: turn.text });
    addAppendedAfter(index + 1);
  });
  for (const message of appended.slice(next)) add(message);
  return chatCtx;
}

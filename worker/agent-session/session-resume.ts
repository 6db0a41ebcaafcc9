import { llm, type voice } from '@livekit/agents';
import type { Logger, WorkerSessionStore } from '../../src/worker-boundary/index.ts';

/** A stored turn of the conversation so far. */
export interface StoredTurn {
  role: 'user' | 'agent';
  text: string;
  /** An agent reply cut off before it was fully heard. */
  interrupted: boolean;
}

/**
 * The resume step's reading: the conversation so far, as the session's earlier jobs
 * stored it (every finalized turn; an interrupted reply as far as it was heard).
 */
export async function conversationSoFar(
  sessions: Pick<WorkerSessionStore, 'turns'>,
  sessionId: string,
): Promise<StoredTurn[]> {
  const turns = await sessions.turns(sessionId);
  return turns.map((turn) => ({ role: turn.role, text: turn.text, interrupted: turn.interrupted }));
}

/** The stored turns as the model's chat context, after `context` (the backend's history). */
export function chatContextOf(
  turns: StoredTurn[],
  context = llm.ChatContext.empty(),
): llm.ChatContext {
  for (const turn of turns) {
    context.addMessage({ role: turn.role === 'user' ? 'user' : 'assistant', content: turn.text });
  }
  return context;
}

/**
 * What the resumed Agent says first, so the user hears it again without asking: the
 * answer to a user turn the lost job never finished answering (a crashed job's reply was
 * cut off and never stored; a job shut down mid-reply stored what was heard of it, marked
 * interrupted, with no user turn after it), else the greeting when the lost job never
 * finished saying it. After a finished reply it waits for the user, as the conversation did.
 */
export function speakAfterResume(
  voiceSession: voice.AgentSession,
  turns: StoredTurn[],
  greeting: string,
  log: Logger,
): void {
  const last = turns.at(-1);
  if (last?.role === 'user' || last?.interrupted) {
    log.info('resumed: answering the last user turn');
    voiceSession.generateReply();
  } else if (last === undefined && greeting) {
    log.info('resumed: greeting again');
    voiceSession.say(greeting, { allowInterruptions: true });
  }
}

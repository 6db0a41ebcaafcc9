import { TurnInProgressError } from '../billing/llm-ledger.ts';
import { ApiError } from '../errors.ts';
import type { ConversationStore } from './conversation-store.ts';
import { publicMessage, type SendInput, type Turn } from './turn.ts';

/** The completed turn a retried `message_id` already got, or null to run it now. */
export async function replayTurn(store: ConversationStore, input: SendInput): Promise<Turn | null> {
  const found = await store.byClientMessageId(input.scope.workspaceId, input.clientMessageId ?? '');
  if (!found) return null;
  const { message } = found;
  if (
    found.agentId !== input.agentId ||
    found.endUserId !== (input.endUserId ?? null) ||
    (input.conversationId !== undefined && input.conversationId !== message.conversationId) ||
    message.text !== input.text
  ) {
    throw new ApiError('conflict', 'message_id was already used for a different message.');
  }
  const turn = await store.turnOf(message.id);
  if (turn?.status !== 'succeeded' || turn.assistantMessageId === null) {
    throw new TurnInProgressError();
  }
  const answer = await store.message(turn.assistantMessageId);
  if (!answer?.usage) throw new TurnInProgressError();
  const usage = answer.usage;
  const reply = publicMessage(answer);
  return {
    conversationId: message.conversationId,
    firstMessage: null,
    userMessage: publicMessage(message),
    replayed: true,
    events: (async function* () {
      yield { type: 'delta', text: reply.text } as const;
      yield {
        type: 'message',
        message: reply,
        usage: {
          usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
          charge: {
            chargedMillicredits: usage.costMillicredits,
            costMillicredits: usage.costMillicredits,
          },
        },
      } as const;
    })(),
  };
}

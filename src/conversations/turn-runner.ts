import { v7 as uuidv7 } from 'uuid';
import type { PublishedAgent } from '../agents/agent-store.ts';
import type { PreparedTools } from '../agents/capabilities/toolbox.ts';
import type { LlmLedger } from '../billing/llm-ledger.ts';
import { llmCostMillicredits } from '../billing/pricing.ts';
import { ApiError } from '../errors.ts';
import { usageBound } from '../llm/bounds.ts';
import { LlmError } from '../llm/errors.ts';
import type {
  LlmChatRequest,
  LlmMessage,
  LlmModelInfo,
  LlmProvider,
  LlmReasoningBlock,
  LlmToolCall,
  LlmUsage,
} from '../llm/provider.ts';
import type { ConversationStore } from './conversation-store.ts';
import type { StoredToolRound } from './tool-history.ts';
import type { SendInput, TurnEvent } from './turn.ts';
import { toTurnError } from './turn-errors.ts';
import type { TurnToolBilling } from './turn-tool-billing.ts';

/**
 * Model calls one turn may make: after this many rounds of tool calls the last call must
 * answer in text.
 */
export const MAX_MODEL_CALLS_PER_TURN = 4;

type ChatRequest = LlmChatRequest & { maxOutputTokens: number };

/** What one model call of a turn produced. */
interface CallResult {
  text: string;
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  reasoning: readonly LlmReasoningBlock[] | undefined;
}

/**
 * Runs the model calls of a started turn and settles its ledger row however it ends.
 * When the Agent's capabilities offer tools, a call that asks for tools has them run and
 * their results sent back in a further call (holding more credit first), until the model
 * answers in text or {@link MAX_MODEL_CALLS_PER_TURN} calls were made. The answer's text
 * is everything the model said across the calls; its usage is their sum; its tool rounds
 * (each call's text, tool calls and results) are stored with it for later turns. A turn that
 * fails or is cancelled leaves no message behind and costs nothing.
 */
export async function* runTurn(params: {
  input: SendInput;
  published: PublishedAgent;
  provider: LlmProvider;
  info: LlmModelInfo;
  request: ChatRequest;
  tools: PreparedTools;
  /** The priced tool calls (web searches) the turn's tools made, charged at the end. */
  billing: TurnToolBilling;
  ledger: LlmLedger;
  store: ConversationStore;
  ids: { conversationId: string; userMessageId: string };
}): AsyncGenerator<TurnEvent> {
  const { input, published, provider, info, tools, billing, ledger, store, ids } = params;
  const removeUserMessage = async (trx: Parameters<ConversationStore['deleteMessage']>[0]) =>
    store.deleteMessage(trx, ids.userMessageId);
  const offered = tools.definitions.length > 0 ? { tools: [...tools.definitions] } : {};
  const messages: LlmMessage[] = [...params.request.messages];
  const total: LlmUsage = { inputTokens: 0, outputTokens: 0 };
  const rounds: StoredToolRound[] = [];
  const answer = {
    conversationId: ids.conversationId,
    workspaceId: input.scope.workspaceId,
    role: 'assistant' as const,
    requestId: input.requestId,
    publicationId: published.publication.id,
    llmProvider: provider.name,
    llmModel: params.request.model,
  };
  let text = '';
  let settled = false;
  try {
    for (let call = 1; ; call++) {
      const last = call === MAX_MODEL_CALLS_PER_TURN;
      const request: ChatRequest = {
        ...params.request,
        messages,
        ...offered,
        ...(last && offered.tools ? { toolChoice: 'none' as const } : {}),
      };
      if (call > 1) {
        const more = llmCostMillicredits(usageBound(provider.name, request), info);
        if (!(await ledger.reserveMore(input.requestId, input.scope.workspaceId, more))) {
          throw new ApiError(
            'insufficient_credit',
            'The workspace credit cannot cover the rest of this answer at the model price.',
          );
        }
      }
      const result = yield* modelCall(
        provider,
        request,
        input.signal,
        (name) => !last && tools.has(name),
      );
      total.inputTokens += result.usage.inputTokens;
      total.outputTokens += result.usage.outputTokens;
      text += result.text;
      if (result.toolCalls.length === 0) break;
      rounds.push(yield* runTools(result, tools, messages, input.signal));
    }
    const id = uuidv7();
    const createdAt = new Date().toISOString();
    const charge = await ledger.succeed(
      input.requestId,
      total,
      async (trx, c) => {
        await store.append(trx, {
          ...answer,
          id,
          text,
          usage: { ...total, costMillicredits: c.chargedMillicredits },
          toolRounds: rounds,
          createdAt,
        });
        return { assistantMessageId: id };
      },
      billing.charges,
    );
    settled = true;
    if (!charge) throw new ApiError('internal_error', 'The turn was closed before it ended.');
    yield {
      type: 'message',
      message: { id, role: 'assistant', text, created_at: createdAt },
      usage: { usage: total, charge },
    };
  } catch (error) {
    if (settled) throw error;
    settled = true;
    const cancelled = input.signal.aborted;
    const apiError = toTurnError(error);
    await ledger.fail(
      input.requestId,
      cancelled ? 'cancelled' : 'failed',
      cancelled ? null : apiError.code,
      removeUserMessage,
    );
    throw apiError;
  } finally {
    // The consumer stopped reading (the client went away): close the turn as cancelled.
    if (!settled) await ledger.fail(input.requestId, 'cancelled', null, removeUserMessage);
  }
}

/**
 * One model call: streams its text as `delta` events and keeps the tool calls `accepts`
 * lets through; throws when the stream ends without an answer.
 */
async function* modelCall(
  provider: LlmProvider,
  request: ChatRequest,
  signal: AbortSignal,
  accepts: (toolName: string) => boolean,
): AsyncGenerator<TurnEvent, CallResult> {
  const result: CallResult = {
    text: '',
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    reasoning: undefined,
  };
  for await (const event of provider.chat(request, signal)) {
    if (event.type === 'text') {
      result.text += event.delta;
      yield { type: 'delta', text: event.delta };
    } else if (event.type === 'tool_call') {
      if (accepts(event.call.name)) result.toolCalls.push(event.call);
    } else if (event.type === 'done') {
      result.usage = event.usage;
      result.reasoning = event.reasoning;
      return result;
    }
  }
  throw new LlmError('unavailable', 'the model stream ended without an answer');
}

/**
 * Runs the tools a model call asked for, one after the other, adding the call and each
 * result to `messages` for the next call; returns the round as it is stored.
 */
async function* runTools(
  result: CallResult,
  tools: PreparedTools,
  messages: LlmMessage[],
  signal: AbortSignal,
): AsyncGenerator<TurnEvent, StoredToolRound> {
  messages.push({
    role: 'assistant',
    content: result.text,
    toolCalls: result.toolCalls,
    ...(result.reasoning ? { reasoning: result.reasoning } : {}),
  });
  const round: StoredToolRound = { text: result.text, calls: [] };
  for (const toolCall of result.toolCalls) {
    yield { type: 'tool_call', id: toolCall.id, name: toolCall.name };
    const outcome = await tools.call(toolCall, signal);
    if (signal.aborted) throw new LlmError('cancelled', 'the turn was cancelled');
    yield { type: 'tool_result', id: toolCall.id, name: toolCall.name, ok: outcome.ok };
    messages.push({ role: 'tool', toolCallId: toolCall.id, content: outcome.output });
    round.calls.push({ ...toolCall, output: outcome.output, ok: outcome.ok });
  }
  return round;
}

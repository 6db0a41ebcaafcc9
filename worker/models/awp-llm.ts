import { randomUUID } from 'node:crypto';
import { type APIConnectOptions, APIError, llm } from '@livekit/agents';
import type {
  LlmMessage,
  LlmProvider,
  LlmToolDefinition,
  LlmUsage,
  ThinkingLevel,
} from '../../src/worker-boundary/index.ts';

/** The tool the model calls to stay quiet on purpose this turn. */
export const STAY_QUIET_TOOL: LlmToolDefinition = {
  name: 'stay_quiet',
  description:
    'Say nothing this turn (the user is not talking to you, or an answer would interrupt). Give a short reason.',
  parameters: {
    type: 'object',
    properties: { reason: { type: 'string', description: 'Why you stay quiet.' } },
    required: ['reason'],
  },
};

export interface AwpLlmOptions {
  provider: LlmProvider;
  model: string;
  thinkingLevel: ThinkingLevel;
  /**
   * Token counts of each answered call, with the id of the user message the call answers
   * (the context's last one; undefined: none), so a caller can charge only calls whose
   * question entered the conversation (a preemptive reply the framework discarded did not).
   */
  onUsage?: (usage: LlmUsage, answering: string | undefined) => void;
  /** The model chose to stay quiet this turn. */
  onDeclined?: (reason: string) => void;
  /**
   * Tools the framework runs (an application's declared tools, a managed Agent's
   * capability tools): their calls go to the framework and the context's calls and outputs
   * go back to the model.
   */
  tools?: () => LlmToolDefinition[];
  /**
   * Offer `stay_quiet`, which is handled here and never reaches the framework. Default:
   * true without `tools` (application sessions leave it out).
   */
  stayQuiet?: boolean;
}

/**
 * The LiveKit `llm.LLM` over the control plane's `LlmProvider` seam: the session's chat
 * context becomes our messages, text deltas become chunks, calls of the framework's tools
 * become its function calls. The `stay_quiet` tool is ours and never reaches the
 * framework: the reply is then empty and `onDeclined` says why.
 */
export class AwpLlm extends llm.LLM {
  constructor(readonly options: AwpLlmOptions) {
    super();
  }

  label(): string {
    return `awp.llm.${this.options.provider.name}`;
  }

  override get model(): string {
    return this.options.model;
  }

  override get provider(): string {
    return this.options.provider.name;
  }

  /**
   * One model call. `toolChoice: 'none'` (the framework's final answer after its tool steps,
   * a spoken update) asks the vendor for text only, and any tool call that still comes back
   * is dropped, `stay_quiet` included.
   */
  chat({
    chatCtx,
    toolCtx,
    connOptions,
    toolChoice,
  }: {
    chatCtx: llm.ChatContext;
    toolCtx?: llm.ToolContextLike;
    connOptions?: APIConnectOptions;
    toolChoice?: llm.ToolChoice;
  }): llm.LLMStream {
    return new AwpLlmStream(this, toolChoice === 'none', {
      chatCtx,
      ...(toolCtx ? { toolCtx } : {}),
      connOptions: connOptions ?? { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 60_000 },
    });
  }
}

class AwpLlmStream extends llm.LLMStream {
  readonly #owner: AwpLlm;
  readonly #textOnly: boolean;

  constructor(
    owner: AwpLlm,
    textOnly: boolean,
    params: {
      chatCtx: llm.ChatContext;
      toolCtx?: llm.ToolContextLike;
      connOptions: APIConnectOptions;
    },
  ) {
    super(owner, params);
    this.#owner = owner;
    this.#textOnly = textOnly;
  }

  protected async run(): Promise<void> {
    const { provider, model, thinkingLevel, onUsage, onDeclined, tools } = this.#owner.options;
    const offerQuiet = this.#owner.options.stayQuiet ?? !tools;
    const frameworkTools = tools?.() ?? [];
    const offered = offerQuiet ? [...frameworkTools, STAY_QUIET_TOOL] : frameworkTools;
    const messages = tools ? toMessagesWithTools(this.chatCtx) : toMessages(this.chatCtx);
    const id = randomUUID();
    try {
      for await (const event of provider.chat(
        {
          model,
          messages,
          tools: offered,
          ...(this.#textOnly ? { toolChoice: 'none' as const } : {}),
          thinkingLevel,
        },
        this.abortController.signal,
      )) {
        // Asked for text only: a vendor that calls a tool anyway is not obeyed.
        if (event.type === 'tool_call' && this.#textOnly) continue;
        if (event.type === 'text') {
          this.queue.put({ id, delta: { role: 'assistant', content: event.delta } });
        } else if (
          event.type === 'tool_call' &&
          !(offerQuiet && event.call.name === STAY_QUIET_TOOL.name)
        ) {
          // Without framework tools a call has nowhere to go (a model that calls anyway).
          if (!tools) continue;
          const call = llm.FunctionCall.create({
            callId: event.call.id,
            name: event.call.name,
            args: event.call.arguments || '{}',
          });
          this.queue.put({ id, delta: { role: 'assistant', toolCalls: [call] } });
        } else if (event.type === 'tool_call') {
          let reason = 'no reason given';
          try {
            const parsed = JSON.parse(event.call.arguments) as { reason?: unknown };
            if (typeof parsed.reason === 'string' && parsed.reason !== '') reason = parsed.reason;
          } catch {
            // Malformed arguments still mean "stay quiet".
          }
          onDeclined?.(reason);
        } else if (event.type === 'done') {
          onUsage?.(event.usage, lastUserMessageId(this.chatCtx));
          this.queue.put({
            id,
            usage: {
              completionTokens: event.usage.outputTokens,
              promptTokens: event.usage.inputTokens,
              promptCachedTokens: 0,
              totalTokens: event.usage.inputTokens + event.usage.outputTokens,
            },
          });
        }
      }
    } catch (error) {
      if (this.abortController.signal.aborted) return;
      const retryable = (error as { retryable?: unknown }).retryable === true;
      throw new APIError(`language model failed: ${(error as Error).message}`, { retryable });
    }
  }
}

/** The id of the context's last user message, if it has one. */
function lastUserMessageId(chatCtx: llm.ChatContext): string | undefined {
  for (let i = chatCtx.items.length - 1; i >= 0; i--) {
    const item = chatCtx.items[i];
    if (item?.type === 'message' && item.role === 'user') return item.id;
  }
  return undefined;
}

/** The session's chat context as our provider messages (text only; no tools of theirs). */
function toMessages(chatCtx: llm.ChatContext): LlmMessage[] {
  const messages: LlmMessage[] = [];
  for (const item of chatCtx.items) {
    if (item.type !== 'message') continue;
    const text = item.textContent ?? '';
    if (text === '') continue;
    if (item.role === 'system' || item.role === 'developer') {
      messages.push({ role: 'system', content: text });
    } else if (item.role === 'user') {
      messages.push({ role: 'user', content: text });
    } else if (item.role === 'assistant') {
      messages.push({ role: 'assistant', content: text });
    }
  }
  return messages;
}

/**
 * The chat context with tool calls and their outputs (application sessions, managed
 * Agents' capabilities): calls that follow an assistant message join it, and their outputs
 * follow as `tool` messages in the order of the calls. The framework records outputs as
 * calls finish (concurrent calls finish in any order), and a message it places among them
 * (an interrupted filler) comes after them, as the vendors require.
 */
function toMessagesWithTools(chatCtx: llm.ChatContext): LlmMessage[] {
  const calls = new Set<string>();
  const outputs = new Map<string, llm.FunctionCallOutput>();
  for (const item of chatCtx.items) {
    if (item.type === 'function_call') calls.add(item.callId);
  }
  for (const item of chatCtx.items) {
    if (item.type === 'function_call_output' && calls.has(item.callId)) {
      outputs.set(item.callId, item);
    }
  }
  const order = callOrder(chatCtx);
  const messages: LlmMessage[] = [];
  /** Calls of the assistant message being built, and those among them already answered. */
  let pending: string[] = [];
  let building: Extract<LlmMessage, { role: 'assistant' }> | undefined;
  const answered = new Set<string>();
  const flush = () => {
    if (building?.toolCalls) {
      building.toolCalls = inModelOrder(building.toolCalls, (call) => call.id, order);
    }
    for (const callId of inModelOrder(pending, (id) => id, order)) {
      const output = outputs.get(callId);
      if (output) messages.push({ role: 'tool', toolCallId: callId, content: output.output });
    }
    pending = [];
    building = undefined;
  };
  for (const item of chatCtx.items) {
    if (item.type === 'function_call') {
      // A call made after an output of this message's calls belongs to a later step.
      if (pending.some((callId) => answered.has(callId))) flush();
      const last = messages.at(-1);
      const call = { id: item.callId, name: item.name, arguments: item.args };
      if (last?.role === 'assistant') {
        last.toolCalls = [...(last.toolCalls ?? []), call];
        building = last;
      } else {
        building = { role: 'assistant', content: '', toolCalls: [call] };
        messages.push(building);
      }
      pending.push(item.callId);
    } else if (item.type === 'function_call_output') {
      answered.add(item.callId);
      // An output whose call is not in the context goes where it stands.
      if (!outputs.has(item.callId)) {
        messages.push({ role: 'tool', toolCallId: item.callId, content: item.output });
      }
    } else if (item.type === 'message') {
      flush();
      messages.push(...toMessages(new llm.ChatContext([item])));
    }
  }
  flush();
  return messages;
}

/** The framework's item id of a call it read from a model step: `<step id>/fnc_<n>`. */
const STEP_CALL_ID = /^(.*)\/fnc_(\d+)$/;

/**
 * Each call's place in the order the model made it: the step's first appearance in the
 * context, then the call's index in that step. The context itself orders by creation time
 * in milliseconds, and calls read in the same millisecond end up in the order they finished.
 */
function callOrder(chatCtx: llm.ChatContext): Map<string, [number, number]> {
  const steps = new Map<string, number>();
  const order = new Map<string, [number, number]>();
  for (const item of chatCtx.items) {
    if (item.type !== 'function_call') continue;
    const match = STEP_CALL_ID.exec(item.id);
    const step = match?.[1] ?? item.id;
    if (!steps.has(step)) steps.set(step, steps.size);
    order.set(item.callId, [steps.get(step) ?? 0, Number(match?.[2] ?? 0)]);
  }
  return order;
}

/** `calls` sorted by the order the model made them (a stable sort: ties keep their place). */
function inModelOrder<T>(
  calls: readonly T[],
  callId: (call: T) => string,
  order: Map<string, [number, number]>,
): T[] {
  const key = (call: T) => order.get(callId(call)) ?? [0, 0];
  return [...calls].sort((a, b) => {
    const [stepA, indexA] = key(a);
    const [stepB, indexB] = key(b);
    return stepA - stepB || indexA - indexB;
  });
}

/**
 * The language-model seam. Every vendor adapter (OpenAI-compatible Chat Completions,
 * Anthropic Messages, the embedded local model) implements `LlmProvider`; agents, the
 * messages route and the agent worker use nothing else.
 */

/** How hard the model should reason before answering; mapped onto each vendor's controls. */
export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;

/** A tool call the model made (arguments are the raw JSON text the model produced). */
export interface LlmToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments object, exactly as the model produced it. */
  arguments: string;
}

/**
 * Reasoning the vendor produced and needs back unchanged in the next request of a tool-use
 * loop (Anthropic extended thinking). Opaque to callers: copy `done.reasoning` into the
 * assistant message that carries the tool calls.
 */
export type LlmReasoningBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      toolCalls?: LlmToolCall[];
      /** The `reasoning` of the `done` event that ended this answer, if any. */
      reasoning?: readonly LlmReasoningBlock[];
    }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model may call. `parameters` is a JSON Schema object. */
export interface LlmToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmChatRequest {
  /** Model name as the registry lists it (`llm_model`). */
  model: string;
  messages: LlmMessage[];
  tools?: LlmToolDefinition[];
  /**
   * `none`: the model must answer in text this time. The tools are still sent, so tool
   * calls already in `messages` stay valid for the vendor. Default `auto`.
   */
  toolChoice?: 'auto' | 'none';
  thinkingLevel?: ThinkingLevel;
  /** Upper bound of generated tokens (vendor default when omitted). */
  maxOutputTokens?: number;
  temperature?: number;
}

/** Token counts of one model call. */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One event of a streamed model answer, in order: deltas and tool calls, then `done`. */
export type LlmEvent =
  | { type: 'text'; delta: string }
  /** A complete tool call (adapters assemble streamed argument fragments). */
  | { type: 'tool_call'; call: LlmToolCall }
  | {
      type: 'done';
      finishReason: 'stop' | 'tool_calls' | 'length';
      usage: LlmUsage;
      /** Reasoning to send back with this answer's tool calls (Anthropic thinking). */
      reasoning?: readonly LlmReasoningBlock[];
    };

/** A model a provider offers, as the registry lists it. */
export interface LlmModelInfo {
  /** `llm_model` value. */
  name: string;
  /** Thinking levels this model accepts; `off` is always accepted. */
  thinkingLevels: readonly ThinkingLevel[];
  /** Price in millicredits per 1,000,000 tokens. */
  inputMillicreditsPer1M: number;
  outputMillicreditsPer1M: number;
  /**
   * False when the model cannot call tools: the provider then runs requests without their
   * tools (the embedded model). Absent means tools are supported.
   */
  supportsTools?: boolean;
}

/**
 * One language-model vendor. `chat` streams; aborting `signal` stops the upstream request
 * at once and ends the iteration with an `LlmError` of kind `cancelled`. Failures are
 * thrown as `LlmError`.
 */
export interface LlmProvider {
  /** `llm_provider` value: `openai`, `anthropic` or `local`. */
  readonly name: LlmProviderName;
  readonly models: readonly LlmModelInfo[];
  chat(request: LlmChatRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
  close(): Promise<void>;
}

/**
 * Every `llm_provider` the software supports, whether or not a deployment configures it
 * (`GET /v1/models` lists what one deployment offers).
 */
export const LLM_PROVIDER_NAMES = ['openai', 'anthropic', 'local'] as const;
export type LlmProviderName = (typeof LLM_PROVIDER_NAMES)[number];

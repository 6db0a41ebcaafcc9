import { ApiError } from '../../errors.ts';
import type { LlmToolCall, LlmToolDefinition } from '../../llm/provider.ts';
import type { Logger } from '../../observability/logger.ts';
import type { PublishedAgent } from '../agent-records.ts';
import {
  type AgentCapability,
  type AgentCapabilityName,
  type AgentTool,
  type AgentToolContext,
  AgentToolError,
} from './agent-tool.ts';

/** Longest result text a tool hands the model; longer results are cut (and say so). */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;
/** Longest a tool call may run before it fails with a timeout the model hears about. */
export const TOOL_CALL_TIMEOUT_MS = 20_000;

/** What one tool call gave the model. */
export interface ToolCallOutcome {
  /** The JSON text the model reads as the call's result. */
  output: string;
  /** False when the call failed (the output then carries `{"error": ...}`). */
  ok: boolean;
}

/** The tools and instructions of one conversation of a published Agent. */
export interface PreparedTools {
  /** The capabilities switched on, in a fixed order. */
  readonly capabilities: readonly AgentCapabilityName[];
  /** Added to the system prompt, one paragraph each. */
  readonly instructions: readonly string[];
  /** What the model is offered; empty when no capability is on. */
  readonly definitions: readonly LlmToolDefinition[];
  has(name: string): boolean;
  /**
   * Runs one call the model made. Never throws: unknown tools, arguments that are not
   * JSON or do not fit the schema, failures and timeouts become an `{"error": ...}` result
   * the model can read and recover from.
   */
  call(call: LlmToolCall, signal: AbortSignal): Promise<ToolCallOutcome>;
}

/**
 * The capabilities a deployment offers managed Agents (memory, documents, calendar, web
 * search). `prepare` picks those the published Agent switched on and renders their
 * instructions and tools for one conversation; the messages route and the agent worker
 * both go through it, so a capability behaves the same in text and in voice.
 */
export class AgentToolbox {
  constructor(
    private readonly capabilities: readonly AgentCapability[],
    private readonly logger: Logger,
    private readonly options: { timeoutMs?: number } = {},
  ) {}

  /**
   * Refuses a conversation without an end user when the Agent has a capability on that
   * needs one: the error of the first such capability, in the toolbox's order.
   */
  requireEndUser(agent: PublishedAgent, endUserId: string | undefined): void {
    if (endUserId) return;
    for (const capability of this.capabilities) {
      if (capability.needsEndUser === null || !capability.enabled(agent)) continue;
      throw new ApiError(
        capability.needsEndUser,
        `The Agent has ${capability.name} enabled: send end_user_id.`,
      );
    }
  }

  async prepare(agent: PublishedAgent, context: AgentToolContext): Promise<PreparedTools> {
    const enabled = this.capabilities.filter((capability) => capability.enabled(agent));
    const instructions: string[] = [];
    for (const capability of enabled) {
      const text = await capability.instructions?.(context, agent);
      if (text) instructions.push(text);
    }
    const tools = new Map<string, AgentTool>();
    for (const capability of enabled) {
      for (const tool of capability.tools(context, agent)) tools.set(tool.definition.name, tool);
    }
    const timeoutMs = this.options.timeoutMs ?? TOOL_CALL_TIMEOUT_MS;
    const log = this.logger;
    return {
      capabilities: enabled.map((capability) => capability.name),
      instructions,
      definitions: [...tools.values()].map((tool) => tool.definition),
      has: (name) => tools.has(name),
      async call(call, signal) {
        const tool = tools.get(call.name);
        if (!tool) return failure(`There is no tool named ${call.name}.`);
        let args: unknown;
        try {
          args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
        } catch {
          return failure('The arguments were not valid JSON.');
        }
        const timeout = AbortSignal.timeout(timeoutMs);
        const combined = AbortSignal.any([signal, timeout]);
        try {
          const result = await tool.run(args, context, combined);
          return { output: boundedJson(result ?? null), ok: true };
        } catch (error) {
          if (error instanceof AgentToolError) return failure(error.message);
          if ((error as { name?: string })?.name === 'ZodError') {
            return failure(`The arguments do not fit the tool's parameters: ${zodSummary(error)}`);
          }
          if (timeout.aborted && !signal.aborted) {
            return failure(`The tool did not answer within ${Math.ceil(timeoutMs / 1000)} s.`);
          }
          if (signal.aborted) return failure('The call was cancelled.');
          log.warn({ err: error, tool: call.name, agent_id: context.agentId }, 'agent tool failed');
          return failure('The tool failed; try again later.');
        }
      },
    };
  }
}

function failure(message: string): ToolCallOutcome {
  return { output: JSON.stringify({ error: message }), ok: false };
}

/** The JSON text of a result, cut to {@link MAX_TOOL_OUTPUT_CHARS}. */
function boundedJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  return JSON.stringify({
    truncated: true,
    partial_result: text.slice(0, MAX_TOOL_OUTPUT_CHARS - 100),
  });
}

function zodSummary(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues ?? [];
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`)
    .join('; ');
}

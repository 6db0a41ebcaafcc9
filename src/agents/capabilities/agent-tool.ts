import { z } from 'zod';
import type { Environment } from '../../app/config.ts';
import type { ErrorCode } from '../../errors.ts';
import type { LlmToolDefinition } from '../../llm/provider.ts';
import type { PublishedAgent } from '../agent-records.ts';

/**
 * Who a managed Agent's tool acts for. Tools read and write only what belongs to this
 * workspace, environment, Agent and end user.
 */
export interface AgentToolContext {
  workspaceId: string;
  environment: Environment;
  agentId: string;
  /**
   * The end user of the conversation (the session token's or the message's
   * `end_user_id`); null when none was given. A capability that declares `needsEndUser`
   * is refused without one, so its tools always have it.
   */
  endUserId: string | null;
  /** The end user's IANA time zone when known (Agent sessions' `sessionContext`). */
  timeZone: string | null;
  /** Where the conversation runs. */
  origin:
    | { kind: 'conversation'; conversationId: string }
    | { kind: 'live_session'; sessionId: string };
  /**
   * Credit for tools that have a price (web search with the deployment's engine), held on
   * the turn that calls them. Absent where the channel charges no tool call (live
   * sessions bill their own way).
   */
  billing?: ToolBilling;
}

/** How a priced tool call is paid for on the turn that makes it. */
export interface ToolBilling {
  /**
   * Holds `millicredits` of the workspace's credit for one call; false, with nothing held,
   * when the credit cannot cover it.
   */
  hold(millicredits: number): Promise<boolean>;
  /** A held web search was made: its price is charged when the turn settles. */
  webSearchMade(millicredits: number): void;
}

/**
 * A failure the model should hear about (a calendar that is not connected, a document that
 * does not exist): its message becomes the tool's result, so the model can tell the user
 * or try something else. Other errors become a generic failure result and are logged.
 */
export class AgentToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentToolError';
  }
}

/** One function a managed Agent's model may call. */
export interface AgentTool {
  readonly definition: LlmToolDefinition;
  /**
   * Runs one call. `args` is the model's JSON arguments, already parsed and validated
   * against the tool's schema. The result must be JSON-serializable; it is what the model
   * reads. Aborting `signal` (the turn was cancelled or interrupted) stops the work.
   */
  run(args: unknown, context: AgentToolContext, signal: AbortSignal): Promise<unknown>;
}

/**
 * Defines a tool from a zod object schema: the model sees the schema as JSON Schema, and
 * the arguments it sends are parsed with the same schema before `run` sees them.
 */
export function defineAgentTool<S extends z.ZodObject>(spec: {
  name: string;
  description: string;
  parameters: S;
  run(args: z.output<S>, context: AgentToolContext, signal: AbortSignal): Promise<unknown>;
}): AgentTool & { readonly schema: S } {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(spec.parameters, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
    reused: 'inline',
  }) as Record<string, unknown>;
  return {
    schema: spec.parameters,
    definition: { name: spec.name, description: spec.description, parameters },
    run: (args, context, signal) => spec.run(spec.parameters.parse(args), context, signal),
  };
}

/** The name of a capability a publication can switch on. */
export type AgentCapabilityName = 'documents' | 'memory' | 'calendar' | 'web_search';

/**
 * One switch of a managed Agent (memory, documents, calendar, web search): what it adds
 * to a conversation of a published Agent that has it on. Capabilities are independent of
 * the transport: text conversations and Agent sessions prepare them the same way.
 */
export interface AgentCapability {
  readonly name: AgentCapabilityName;
  /**
   * The error a conversation without an end user gets when the capability is on (its
   * tools keep or read data per end user); null when it works without one.
   */
  readonly needsEndUser: ErrorCode | null;
  /** Whether this publication turns the capability on. */
  enabled(agent: PublishedAgent): boolean;
  /**
   * Text added to the system prompt when a conversation begins (what the Agent remembers
   * about the end user, which documents it can search); undefined adds nothing.
   */
  instructions?(context: AgentToolContext, agent: PublishedAgent): Promise<string | undefined>;
  /** The tools the model is offered in this conversation. */
  tools(context: AgentToolContext, agent: PublishedAgent): readonly AgentTool[];
}

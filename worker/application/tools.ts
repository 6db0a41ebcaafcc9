import type { JsonValue } from '@awp/protocol';
import { llm, type voice } from '@livekit/agents';
import type {
  ApplicationTool,
  LlmToolDefinition,
  Logger,
} from '../../src/worker-boundary/index.ts';
import { type RequestOutcome, type RequestTracker, TooManyPendingError } from './requests.ts';
import type { CancelReason } from './wire.ts';

interface RunningCall {
  callId: string;
  name: string;
  requestId: string;
  cancellable: boolean;
  /** A first progress arrived: the conversation went on without the result. */
  nonBlocking: boolean;
  /** The framework stopped waiting (an interrupted blocking call): the result is kept quietly. */
  detached: boolean;
  ctx: voice.RunContext;
}

/**
 * The backend's declared tools as the model's tools: each call becomes a `tool` callback.
 * A call blocks the reply until its result, or until its first progress, which makes it
 * non-blocking (the framework's `RunContext.update`): the model is told it is running and
 * the final result reaches the context later. Duplicate policies compare names of running
 * calls; `cancellable` calls end when the user interrupts; `runReply: false` results enter
 * the context without a reply.
 */
export class ToolRunner {
  readonly #tools: Map<string, ApplicationTool>;
  readonly #running = new Map<string, RunningCall>();
  /** Blocking `runReply: false` results, written into the framework's output (see onExecuted). */
  readonly #quietOutputs = new Map<string, string>();
  /** Tools whose duplicate was held for confirmation, with the user turn it was asked in. */
  readonly #confirmAsked = new Map<string, number>();
  #userTurn = 0;

  constructor(
    tools: readonly ApplicationTool[],
    private readonly requests: RequestTracker,
    private readonly log: Logger,
  ) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** What the model is offered. */
  definitions(): LlmToolDefinition[] {
    return [...this.#tools.values()].map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
  }

  /** The framework tools (duplicates and cancellation are handled here, not by the framework). */
  frameworkTools(): llm.FunctionTool[] {
    return [...this.#tools.values()].map((declared) =>
      llm.tool({
        name: declared.name,
        description: declared.description,
        parameters: declared.parameters as never,
        execute: (args: unknown, options: llm.ToolOptions) =>
          this.#execute(declared, args, options) as Promise<unknown>,
      }),
    ) as llm.FunctionTool[];
  }

  /** A new user turn began (confirmations asked before it now let the tool run). */
  userTurn(): void {
    this.#userTurn += 1;
  }

  /** The user interrupted the Agent: cancellable calls end (`interrupted`). */
  interrupted(): void {
    for (const call of [...this.#running.values()]) {
      if (call.cancellable) this.cancel(call.callId, 'interrupted');
    }
  }

  /** Cancels a running call; false when no call with that id runs. */
  cancel(callId: string, reason: CancelReason): boolean {
    const call = this.#running.get(callId);
    if (!call) return false;
    return this.requests.cancel(call.requestId, reason);
  }

  /** Whether a call with this id was ever started and still runs. */
  running(callId: string): boolean {
    return this.#running.has(callId);
  }

  /**
   * `FunctionToolsExecuted` listener: a blocking `runReply: false` call returned nothing to
   * the framework (so no reply is generated); its real result is written into the output
   * before the framework adds it to the context.
   */
  onExecuted(event: voice.FunctionToolsExecutedEvent): void {
    for (const output of event.functionCallOutputs) {
      const quiet = this.#quietOutputs.get(output.callId);
      if (quiet === undefined) continue;
      this.#quietOutputs.delete(output.callId);
      output.output = quiet;
    }
  }

  async #execute(
    declared: ApplicationTool,
    args: unknown,
    { ctx, toolCallId, abortSignal }: llm.ToolOptions,
  ): Promise<unknown> {
    const { name } = declared;
    const duplicates = [...this.#running.values()].filter((call) => call.name === name);
    if (duplicates.length > 0) {
      if (declared.onDuplicate === 'reject') {
        throw new llm.ToolError(
          `duplicate_rejected: ${name} is already running; this call was not made.`,
        );
      }
      if (declared.onDuplicate === 'replace') {
        for (const call of duplicates) this.cancel(call.callId, 'replaced');
      }
      if (declared.onDuplicate === 'confirm') {
        const askedIn = this.#confirmAsked.get(name);
        if (askedIn === undefined || askedIn >= this.#userTurn) {
          this.#confirmAsked.set(name, this.#userTurn);
          return `${name} is already running, so this call was not made. Ask the user to confirm that they want another one; call it again if they do.`;
        }
      }
    }
    this.#confirmAsked.delete(name);

    let firstProgress: (value: unknown) => void = () => {};
    const progressed = new Promise<{ type: 'progress'; value: unknown }>((resolve) => {
      firstProgress = (value) => resolve({ type: 'progress', value });
    });
    let started: ReturnType<RequestTracker['start']>;
    try {
      started = this.requests.start(
        // The framework parsed the arguments from the model's JSON text.
        { type: 'tool', tool: { callId: toolCallId, name, arguments: (args ?? {}) as JsonValue } },
        (value) => firstProgress(value),
      );
    } catch (error) {
      if (error instanceof TooManyPendingError) {
        throw new llm.ToolError(`too_many_pending: ${error.message}`);
      }
      throw error;
    }
    const call: RunningCall = {
      callId: toolCallId,
      name,
      requestId: started.requestId,
      cancellable: declared.cancellable,
      nonBlocking: false,
      detached: false,
      ctx,
    };
    this.#running.set(toolCallId, call);
    const onAbort = () => {
      if (call.nonBlocking) return;
      if (call.cancellable) this.cancel(toolCallId, 'interrupted');
      else call.detached = true;
    };
    abortSignal.addEventListener('abort', onAbort, { once: true });
    const finished = started.done.finally(() => {
      this.#running.delete(toolCallId);
      abortSignal.removeEventListener('abort', onAbort);
    });

    const first = await Promise.race([finished, progressed]);
    if (first.type === 'progress') {
      call.nonBlocking = true;
      this.log.info({ tool: name, call_id: toolCallId }, 'tool is running in the background');
      await ctx.update(first.value);
      const outcome = await finished;
      if (outcome.type === 'result' && declared.runReply) return outcome.value;
      await this.#addQuietly(call, outcomeForModel(outcome));
      return undefined;
    }
    if (call.detached) {
      await this.#addQuietly(call, outcomeForModel(first));
      return undefined;
    }
    if (first.type === 'result') {
      if (declared.runReply) return first.value;
      this.#quietOutputs.set(toolCallId, JSON.stringify(first.value ?? null));
      return undefined;
    }
    throw new llm.ToolError(toolErrorText(first));
  }

  /** Adds a late outcome to the Agent's context without asking for a reply. */
  async #addQuietly(call: RunningCall, output: unknown): Promise<void> {
    const agent = call.ctx.session.currentAgent;
    const chatCtx = agent.chatCtx.copy();
    chatCtx.insert(call.ctx._makeUpdatePair(output, '_final'));
    await agent.updateChatCtx(chatCtx);
  }
}

/** What the model reads for an outcome that is not a plain result. */
function outcomeForModel(outcome: RequestOutcome): unknown {
  if (outcome.type === 'result') return outcome.value;
  return { failed: toolErrorText(outcome) };
}

function toolErrorText(outcome: Exclude<RequestOutcome, { type: 'result' }>): string {
  if (outcome.type === 'error') return `${outcome.error.code}: ${outcome.error.message}`;
  if (outcome.reason === 'deadline') {
    return 'deadline_exceeded: the tool did not answer in time and was cancelled.';
  }
  if (outcome.reason === 'backend_cancelled') return 'cancelled by the application.';
  if (outcome.reason === 'replaced') return 'cancelled: a newer call of the same tool replaced it.';
  return `cancelled (${outcome.reason}).`;
}

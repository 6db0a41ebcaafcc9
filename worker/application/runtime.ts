import { type llm, voice } from '@livekit/agents';
import type { Room } from '@livekit/rtc-node';
import type {
  ApplicationSession,
  ContextUpdate,
  LlmToolDefinition,
  Logger,
} from '../../src/worker-boundary/index.ts';
import type { MessageIds } from '../agent-session/message-ids.ts';
import type { StoredTurn } from '../agent-session/session-resume.ts';
import { CommandHandler, type ContextChange } from './commands.ts';
import { applicationChatContext } from './context-replay.ts';
import { ApplicationAgent, InputGate, userMessage } from './input.ts';
import { BackendLink } from './link.ts';
import { SpokenUpdates } from './replies.ts';
import { RequestTracker } from './requests.ts';
import { ToolRunner } from './tools.ts';

/** A persisted transcript turn, as the `transcript` callback reports it. */
export interface PersistedTurn {
  id: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: boolean;
}

/**
 * An application session's part of an Agent session (protocol v2): the backend link, the
 * pending callbacks, the tools, the spoken updates and the commands, and the hooks the
 * session runner calls. Memory, documents, calendar, web search and stay-quiet are absent.
 */
export class ApplicationRuntime {
  readonly link: BackendLink;
  readonly requests: RequestTracker;
  readonly tools: ToolRunner;
  readonly #gate: InputGate;
  readonly #log: Logger;
  readonly #messageIds: MessageIds;
  readonly #contextUpdate: ContextUpdate | null;
  readonly #storeContextUpdate: (change: ContextChange) => Promise<boolean>;
  #contextWrites: Promise<void> = Promise.resolve();
  #updates: SpokenUpdates | undefined;

  constructor(
    room: Room,
    private readonly application: ApplicationSession,
    options: {
      deadlineMs: number;
      log: Logger;
      messageIds: MessageIds;
      /** The backend's `update_context` the session's earlier jobs stored; null: none. */
      contextUpdate: ContextUpdate | null;
      /** Stores an applied `update_context` for a job that takes the session over. */
      storeContextUpdate: (change: ContextChange) => Promise<boolean>;
    },
  ) {
    this.#messageIds = options.messageIds;
    this.#contextUpdate = options.contextUpdate;
    this.#storeContextUpdate = options.storeContextUpdate;
    this.#log = options.log.child({ application: true });
    this.link = new BackendLink(room, application.backendIdentity, this.#log);
    this.requests = new RequestTracker(this.link, {
      deadlineMs: options.deadlineMs,
      log: this.#log,
    });
    this.tools = new ToolRunner(application.spec.tools, this.requests, this.#log);
    this.#gate = new InputGate(this.requests, this.#log, () => {
      this.tools.userTurn();
      this.#updates?.invalidate();
    });
    this.link.onReady(() => this.#updates?.newConnection());
  }

  /** The model's tools (the backend's declared tools only). */
  toolDefinitions = (): LlmToolDefinition[] => this.tools.definitions();

  /** The instructions the job starts with: the backend's last `update_context`'s, else the start's. */
  get instructions(): string {
    return this.#contextUpdate?.instructions ?? this.application.spec.instructions;
  }

  /**
   * The Agent: the backend's instructions, its history as the chat context, its tools.
   * A resumed session's stored turns (`soFar`) follow the history, with the messages the
   * backend appended among them, and its last instructions in effect: the context the lost
   * job had.
   */
  agent(soFar: StoredTurn[] = []): voice.Agent {
    return new ApplicationAgent(
      {
        instructions: this.instructions,
        chatCtx: applicationChatContext(this.application.spec.history, soFar, this.#contextUpdate),
        tools: this.tools.frameworkTools(),
      },
      this.#gate,
      this.#messageIds,
    );
  }

  /**
   * Starts the protocol once the session runs: the capability attribute first, then the
   * command handler and the session events the tools and spoken updates follow.
   */
  async start(voiceSession: voice.AgentSession): Promise<void> {
    this.#updates = new SpokenUpdates(voiceSession, this.requests, this.#log);
    new CommandHandler(this.link, {
      voiceSession,
      tools: this.tools,
      updates: this.#updates,
      log: this.#log,
      contextChanged: (change) => this.#contextChanged(change),
    });
    voiceSession.on(voice.AgentSessionEventTypes.FunctionToolsExecuted, (event) =>
      this.tools.onExecuted(event),
    );
    await this.link.advertise();
  }

  /**
   * Stores an applied `update_context`, one at a time in the order applied (each merges into
   * what the one before stored). A failed write is logged, not thrown: the update took effect
   * in this job.
   */
  #contextChanged(change: ContextChange): Promise<void> {
    const write = this.#contextWrites.then(async () => {
      try {
        if (!(await this.#storeContextUpdate(change))) {
          this.#log.info('context update not stored: the session is over or another job runs it');
        }
      } catch (error) {
        this.#log.warn({ err: error }, 'context update not stored');
      }
    });
    this.#contextWrites = write;
    return write;
  }

  /**
   * Typed user input (`lk.chat`): the backend decides first, else `modelReply` answers the
   * message. Either way the message persisted is the one the backend was asked about.
   */
  async textInput(
    voiceSession: voice.AgentSession,
    text: string,
    modelReply: (message: llm.ChatMessage) => unknown,
  ): Promise<void> {
    const message = userMessage(text);
    const decision = await this.#gate.decide(text, 'text', this.#messageIds.of(message.id));
    if (decision.action === 'model') {
      await modelReply(message);
      return;
    }
    await this.#gate.apply(voiceSession, message, decision);
  }

  /**
   * This job resumed the session after its job was lost: the backend hears of it once
   * (`interruption`), which cancels every callback of the lost job it had pending.
   */
  resumed(): void {
    this.#log.info('telling the backend of the interruption');
    this.requests.start({ type: 'interruption', interruption: { reason: 'worker_lost' } });
  }

  /** A finalized turn was persisted: the backend hears of it with the same durable id. */
  transcript(turn: PersistedTurn): void {
    try {
      this.requests.start({ type: 'transcript', transcript: turn });
    } catch (error) {
      this.#log.warn({ err: error, message_id: turn.id }, 'transcript callback not sent');
    }
  }

  /** A playout ended after `spoken`; an interrupted one ends cancellable tool calls. */
  playoutFinished(spoken: string, interrupted: boolean): void {
    this.#updates?.playoutFinished(spoken);
    if (interrupted) this.tools.interrupted();
  }

  /** The session is over: everything pending is cancelled (`session_ended`). */
  close(): void {
    this.requests.cancelAll('session_ended');
  }
}

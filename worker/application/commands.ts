import { llm, type voice } from '@livekit/agents';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { BackendLink } from './link.ts';
import type { SpokenUpdates } from './replies.ts';
import type { ToolRunner } from './tools.ts';
import {
  APPLICATION_TOPICS,
  type CommandMessage,
  commandMessageSchema,
  PayloadTooLargeError,
  type WireError,
} from './wire.ts';

type CommandOutcome = { ok: true; value: unknown } | { ok: false; error: WireError };

/** What one `update_context` changed: instructions replaced, messages appended. */
export type ContextChange = Pick<
  Extract<CommandMessage, { command: 'update_context' }>,
  'instructions' | 'messages'
>;

/**
 * The backend's commands (`application.command`), each answered on
 * `application.command_result` with the same `requestId`: `update_context` (instructions
 * replaced, messages appended, nothing spoken; answered once the change is stored with the
 * session, so a job that takes the session over starts with it), `request_reply` (a queued
 * spoken update, answered after its playout) and `cancel_tool`.
 */
export class CommandHandler {
  constructor(
    private readonly link: BackendLink,
    private readonly deps: {
      voiceSession: voice.AgentSession;
      tools: ToolRunner;
      updates: SpokenUpdates;
      log: Logger;
      /** An `update_context` took effect: stored for a job that takes the session over. */
      contextChanged: (change: ContextChange) => Promise<void>;
    },
  ) {
    link.listen(
      APPLICATION_TOPICS.command,
      ({ body, attributes }) => {
        void this.#handle(body, attributes.requestId);
      },
      (requestId) => {
        if (!requestId) return;
        void this.#answer(requestId, {
          ok: false,
          error: { code: 'payload_too_large', message: 'The command exceeded 256,000 characters.' },
        });
      },
    );
  }

  async #handle(body: unknown, streamRequestId: string | undefined): Promise<void> {
    const parsed = commandMessageSchema.safeParse(body);
    if (!parsed.success) {
      const requestId =
        (body as { requestId?: unknown } | null)?.requestId ?? streamRequestId ?? undefined;
      this.deps.log.warn('invalid application command');
      if (typeof requestId === 'string' && requestId !== '') {
        await this.#answer(requestId, {
          ok: false,
          error: {
            code: 'invalid_request',
            message: parsed.error.issues
              .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
              .join('; '),
          },
        });
      }
      return;
    }
    const command = parsed.data;
    let outcome: CommandOutcome;
    try {
      outcome = await this.#run(command);
    } catch (error) {
      this.deps.log.error({ err: error, command: command.command }, 'application command failed');
      outcome = { ok: false, error: { code: 'invalid_request', message: 'The command failed.' } };
    }
    await this.#answer(command.requestId, outcome);
  }

  async #run(command: CommandMessage): Promise<CommandOutcome> {
    const { voiceSession, tools, updates } = this.deps;
    if (command.command === 'update_context') {
      const agent = voiceSession.currentAgent;
      if (command.instructions !== undefined) await agent.updateInstructions(command.instructions);
      if (command.messages && command.messages.length > 0) {
        const chatCtx = agent.chatCtx.copy();
        for (const message of command.messages) {
          chatCtx.insert(llm.ChatMessage.create({ role: message.role, content: message.content }));
        }
        await agent.updateChatCtx(chatCtx);
      }
      await this.deps.contextChanged({
        instructions: command.instructions,
        messages: command.messages,
      });
      return { ok: true, value: {} };
    }
    if (command.command === 'request_reply') {
      const outcome = await updates.request(command.id, command.instructions);
      return outcome.ok ? { ok: true, value: outcome.value } : outcome;
    }
    if (!tools.running(command.callId)) {
      return { ok: true, value: { cancelled: false } };
    }
    return { ok: true, value: { cancelled: tools.cancel(command.callId, 'backend_cancelled') } };
  }

  async #answer(requestId: string, outcome: CommandOutcome): Promise<void> {
    const body = outcome.ok
      ? { requestId, type: 'result', value: outcome.value }
      : { requestId, type: 'error', error: outcome.error };
    const attributes = { requestId, type: body.type };
    try {
      await this.link.send(APPLICATION_TOPICS.commandResult, body, attributes);
    } catch (error) {
      if (error instanceof PayloadTooLargeError) {
        await this.#answer(requestId, {
          ok: false,
          error: { code: 'payload_too_large', message: error.message },
        });
        return;
      }
      this.deps.log.warn({ err: error, request_id: requestId }, 'command result not sent');
    }
  }
}

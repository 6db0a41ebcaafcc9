import type { JobContext } from '@livekit/agents';
import type { Logger, PreparedTools } from '../../src/worker-boundary/index.ts';
import { ApplicationRuntime } from '../application/runtime.ts';
import { MessageIds } from './message-ids.ts';
import { renderSessionPrompt } from './prompt.ts';
import type { SessionBilling } from './session-billing.ts';
import type { SessionDependencies } from './session-deps.ts';
import type { TakenSession } from './session-job.ts';
import { SessionToolBilling } from './session-tool-billing.ts';

/** What the session says and can do: the prompt, the Agent's tools or the backend's. */
export interface PreparedConversation {
  /** Application sessions only: the backend link, its tools and callbacks. */
  app: ApplicationRuntime | undefined;
  /** Managed sessions only: memory, documents, calendar, web search. */
  capabilities: PreparedTools | undefined;
  prompt: { instructions: string; greeting: string };
  messageIds: MessageIds;
}

/**
 * The prompt and capabilities steps: application sessions take the backend's instructions
 * instead of the character card (those of its last `update_context`, which the session's
 * jobs store), and the backend owns the opening (no greeting); managed sessions get the
 * Agent's capabilities (memory and the rest, as stored now) and its card.
 */
export async function prepareConversation(
  ctx: JobContext,
  deps: SessionDependencies,
  taken: TakenSession,
  billing: SessionBilling,
  log: Logger,
): Promise<PreparedConversation> {
  const { record } = taken;
  const messageIds = new MessageIds();
  const app =
    record.kind === 'application' && record.application
      ? new ApplicationRuntime(ctx.room, record.application, {
          deadlineMs: deps.workerConfig.APPLICATION_REQUEST_DEADLINE_MS,
          log,
          messageIds,
          contextUpdate: record.contextUpdate,
          storeContextUpdate: (update) =>
            deps.api.sessions.recordContextUpdate(record.id, taken.epoch, update),
        })
      : undefined;
  const capabilities = app
    ? undefined
    : await deps.api.prepareCapabilities(
        record,
        log,
        new SessionToolBilling(
          () => deps.api.creditBalance(record.workspaceId),
          billing.meter,
          () => billing.sessionMs(),
          { sessions: deps.api.sessions, sessionId: record.id },
          log,
        ),
      );
  const prompt = app
    ? { instructions: app.instructions, greeting: '' }
    : renderSessionPrompt(
        record.snapshot.characterCard,
        record.sessionContext,
        capabilities?.instructions,
      );
  return { app, capabilities, prompt, messageIds };
}

import { llm } from '@livekit/agents';
import type { LiveSessionRecord } from '../../src/agents/live-sessions.ts';
import type { ToolBilling } from '../../src/agents/tools/agent-tool.ts';
import { createAgentToolbox } from '../../src/agents/tools/capabilities.ts';
import type { PreparedTools } from '../../src/agents/tools/toolbox.ts';
import type { Config } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { Logger } from '../../src/observability/logger.ts';
import { SecretBox } from '../../src/secrets/secret-box.ts';
import type { ToolTurns } from './tool-turns.ts';

/** What a call the user cancelled by speaking gives the model. */
const CANCELLED_BEFORE_START = { error: 'The call was cancelled.' };

/**
 * The published Agent's capabilities (memory, documents, calendar, web search) for one
 * live session, prepared as in text conversations: their instructions join the prompt and
 * their tools are the framework's tools. Application sessions have none (the spec turns
 * them off there).
 */
export async function prepareSessionCapabilities(
  record: LiveSessionRecord,
  deps: { config: Config; db: DatabaseHandle; log: Logger; billing?: ToolBilling },
): Promise<PreparedTools> {
  const { config } = deps;
  const toolbox = createAgentToolbox({
    config,
    db: deps.db.db,
    secretBox: SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR }),
    logger: deps.log,
  });
  return toolbox.prepare(record.snapshot, {
    workspaceId: record.workspaceId,
    environment: record.environment,
    agentId: record.snapshot.agentId,
    endUserId: record.endUserId,
    timeZone: record.sessionContext?.timeZone ?? null,
    origin: { kind: 'live_session', sessionId: record.id },
    ...(deps.billing ? { billing: deps.billing } : {}),
  });
}

/**
 * The prepared tools as the framework's function tools. A call runs through the toolbox,
 * which never throws: a failure reaches the model as an `{"error": ...}` result. `turns`
 * bounds how many run at once, says the filler of a slow one and cancels them on barge-in.
 */
export function capabilityFrameworkTools(
  prepared: PreparedTools,
  turns: ToolTurns,
): llm.FunctionTool[] {
  return prepared.definitions.map((definition) =>
    llm.tool({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters as never,
      execute: async (args: unknown, options: llm.ToolOptions) => {
        const outcome = await turns.run(options.ctx?.speechHandle, options.abortSignal, (signal) =>
          prepared.call(
            {
              id: options.toolCallId,
              name: definition.name,
              arguments: JSON.stringify(args ?? {}),
            },
            signal,
          ),
        );
        return outcome ? (JSON.parse(outcome.output) as unknown) : CANCELLED_BEFORE_START;
      },
    }),
  ) as llm.FunctionTool[];
}

import { llm } from '@livekit/agents';
import type { PreparedTools } from '../../src/worker-boundary/index.ts';
import type { ToolTurns } from './tool-turns.ts';

/** What a call the user cancelled by speaking gives the model. */
const CANCELLED_BEFORE_START = { error: 'The call was cancelled.' };

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

import { llm } from '@livekit/agents';
import type { PreparedTools } from '../../src/worker-boundary/index.ts';

/**
 * The prepared tools as the framework's function tools. A call runs through the toolbox,
 * which never throws: a failure reaches the model as an `{"error": ...}` result.
 */
export function capabilityFrameworkTools(prepared: PreparedTools): llm.FunctionTool[] {
  return prepared.definitions.map((definition) =>
    llm.tool({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters as never,
      execute: async (args: unknown, options: llm.ToolOptions) => {
        const outcome = await prepared.call(
          {
            id: options.toolCallId,
            name: definition.name,
            arguments: JSON.stringify(args ?? {}),
          },
          options.abortSignal,
        );
        return JSON.parse(outcome.output) as unknown;
      },
    }),
  ) as llm.FunctionTool[];
}

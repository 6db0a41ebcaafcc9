import { z } from 'zod';
import type { PublishedAgent } from '../../agent-records.ts';
import {
  type AgentCapability,
  type AgentToolContext,
  AgentToolError,
  defineAgentTool,
} from '../agent-tool.ts';
import { MAX_MEMORY_CHARS, type MemoryOwner, type MemoryStore } from './memory-store.ts';

function ownerOf(context: AgentToolContext): MemoryOwner {
  // Sessions and messages of an Agent with memory always name their end user
  // (`memory_identity_required`); this guards the tool all the same.
  if (!context.endUserId) throw new AgentToolError('There is no end user to remember things of.');
  return {
    workspaceId: context.workspaceId,
    environment: context.environment,
    agentId: context.agentId,
    endUserId: context.endUserId,
  };
}

/**
 * Long-term memory (`memory_enabled`): what the Agent learned about the end user in
 * earlier conversations, text or voice, is in its system prompt when a conversation
 * begins; the `remember` and `forget` tools change it during the conversation. Memories
 * belong to one Agent and one end user.
 */
export function memoryCapability(store: MemoryStore): AgentCapability {
  const remember = defineAgentTool({
    name: 'remember',
    description:
      'Save one lasting fact about the user for future conversations (a preference, a name, a plan, something they asked you to remember). One short, self-contained sentence in the third person. Do not save passing small talk.',
    parameters: z.object({
      fact: z
        .string()
        .trim()
        .min(1)
        .max(MAX_MEMORY_CHARS)
        .describe('The fact, for example "Prefers to be called Sam."'),
    }),
    run: async ({ fact }, context) => {
      const { memory, forgotten } = await store.save(ownerOf(context), fact, 'agent');
      return {
        saved: { id: memory.id, fact: memory.text },
        ...(forgotten.length > 0
          ? { forgotten_to_make_room: forgotten.map((m) => ({ id: m.id, fact: m.text })) }
          : {}),
      };
    },
  });
  const forget = defineAgentTool({
    name: 'forget',
    description:
      'Forget one remembered fact about the user, by its id (when the user asks you to forget it, or it is no longer true).',
    parameters: z.object({
      memory_id: z.string().describe('The id shown with the fact in your memory.'),
    }),
    run: async ({ memory_id }, context) => {
      const gone = await store.forget(ownerOf(context), memory_id.trim().toLowerCase());
      if (!gone) throw new AgentToolError(`No remembered fact has the id ${memory_id}.`);
      return { forgotten: memory_id };
    },
  });
  return {
    name: 'memory',
    needsEndUser: 'memory_identity_required',
    enabled: (agent: PublishedAgent) => agent.publication.memoryEnabled,
    async instructions(context) {
      if (!context.endUserId) return undefined;
      const memories = await store.list(ownerOf(context));
      const intro =
        'You have a long-term memory of this user across conversations. Use the remember tool to save lasting facts the user shares, and the forget tool when they ask you to forget something or a fact is no longer true. Never mention memory ids to the user.';
      if (memories.length === 0) {
        return `${intro}\nYou remember nothing about this user yet.`;
      }
      const lines = memories.map((m) => `- ${m.text} (id ${m.id})`);
      return `${intro}\nWhat you remember about this user, oldest first:\n${lines.join('\n')}`;
    },
    tools: () => [remember, forget],
  };
}

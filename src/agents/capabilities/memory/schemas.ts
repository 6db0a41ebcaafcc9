import { z } from 'zod';
import { MAX_MEMORY_CHARS, type MemoryRecord } from './memory-store.ts';

const endUserId = z
  .uuid()
  .describe('Your end user (UUID), as sent with session tokens and messages.');

export const memorySchema = z
  .object({
    id: z.string().describe('Memory id (UUID).'),
    agent_id: z.string(),
    end_user_id: z.string(),
    text: z.string(),
    source: z
      .enum(['agent', 'api'])
      .describe('`agent`: saved by the Agent in a conversation; `api`: written by your backend.'),
    created_at: z.string(),
  })
  .meta({ title: 'AgentMemory' });

export const memoryListSchema = z
  .object({
    end_user_id: z.string(),
    memories: z.array(memorySchema).describe('Oldest first.'),
  })
  .meta({ title: 'AgentMemoryList' });

export const memoryQuerySchema = z.strictObject({ end_user_id: endUserId });
export type MemoryQuery = z.infer<typeof memoryQuerySchema>;

export const createMemorySchema = z
  .strictObject({
    end_user_id: endUserId,
    text: z
      .string()
      .trim()
      .min(1)
      .max(MAX_MEMORY_CHARS)
      .describe('One fact about the end user, as the Agent should read it.'),
  })
  .meta({ title: 'AgentMemoryCreate' });
export type CreateMemoryBody = z.infer<typeof createMemorySchema>;

export function memoryBody(memory: MemoryRecord): z.infer<typeof memorySchema> {
  return {
    id: memory.id,
    agent_id: memory.agentId,
    end_user_id: memory.endUserId,
    text: memory.text,
    source: memory.source,
    created_at: memory.createdAt,
  };
}

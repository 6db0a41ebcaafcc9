import type { Kysely } from 'kysely';
import type { AgentDraft, PublishedAgent } from '../../src/agents/agent-records.ts';
import { AgentStore } from '../../src/agents/agent-store.ts';
import { emptyCard } from '../../src/agents/character-card.ts';
import type { Database } from '../../src/db/schema.ts';

/**
 * Creates and publishes an Agent straight through the store (no api) and returns what a
 * session would run: its active publication. `draft` overrides the plain defaults.
 */
export async function publishedAgentSnapshot(
  db: Kysely<Database>,
  workspaceId: string,
  slug: string,
  draft: Partial<AgentDraft> = {},
): Promise<PublishedAgent> {
  const store = new AgentStore(db);
  const agent = await store.create({
    workspaceId,
    environment: 'production',
    slug,
    draft: {
      characterCard: emptyCard(slug),
      voiceId: 'voice_test',
      avatarId: 'avatar_ada',
      llmProvider: 'openai',
      llmModel: 'gpt-4.1-mini',
      thinkingLevel: 'off',
      webSearchEnabled: false,
      memoryEnabled: false,
      calendarEnabled: false,
      documentsEnabled: false,
      language: null,
      recordingEnabled: false,
      ...draft,
    },
  });
  await store.publish(workspaceId, 'production', agent.id, () => {});
  const snapshot = await store.activePublication(workspaceId, 'production', agent.id);
  if (!snapshot) throw new Error(`the Agent ${slug} is not published`);
  return snapshot;
}

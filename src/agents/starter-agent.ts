import type { Environment } from '../app/config.ts';
import { ApiError } from '../errors.ts';
import type { Agents } from './agents.ts';

/** The neural US English voice when installed, else the lite one: both are built in. */
const STARTER_VOICES = ['voice_AG63NAA6qYXtuK33ioJM', 'voice_en0ITv6xOZPfMiT0sGIW'];

/**
 * A published Agent for a fresh single-node install, so a newcomer can talk to one in
 * the demo page right after `npm start`. Created once, with the first workspace.
 */
export async function createStarterAgent(
  agents: Agents,
  workspaceId: string,
  environment: Environment,
): Promise<string | undefined> {
  const scope = { workspaceId, environment };
  for (const voiceId of STARTER_VOICES) {
    try {
      const agent = await agents.create(scope, {
        slug: 'guide',
        voice_id: voiceId,
        character_card: {
          spec: 'chara_card_v3',
          spec_version: '3.0',
          data: {
            name: 'Guide',
            description: 'A friendly guide to this voice-agent platform.',
            personality: 'warm, brief, curious',
            scenario: 'A visitor tries the platform for the first time from its demo page.',
            first_mes: 'Hello! I am Guide. Ask me anything, by voice or by text.',
            mes_example: '',
            system_prompt:
              'You are {{char}}, a voice assistant. Answer {{user}} in one or two short spoken sentences.',
            post_history_instructions: '',
            creator_notes: 'Created on first start; edit or delete it freely.',
            creator: 'awp',
            character_version: '1',
            alternate_greetings: [],
            tags: ['starter'],
            group_only_greetings: [],
            extensions: {},
          },
        },
      });
      await agents.publish(scope, agent.id);
      return agent.id;
    } catch (error) {
      // The neural voice is absent when its weights are not installed: try the next one.
      if (error instanceof ApiError && error.code === 'voice_not_found') continue;
      throw error;
    }
  }
  return undefined;
}

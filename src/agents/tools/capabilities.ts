import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import type { Logger } from '../../observability/logger.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import type { AgentCapability } from './agent-tool.ts';
import { documentsCapability } from './documents.ts';
import { AgentToolbox } from './toolbox.ts';

/** What capabilities are built from; the api and the agent worker both have all of it. */
export interface CapabilityDependencies {
  config: Config;
  db: Kysely<Database>;
  /** Opens sealed credentials (calendar connections). */
  secretBox: SecretBox;
  logger: Logger;
}

/**
 * The deployment's managed-Agent capabilities, in the order their instructions appear in
 * the system prompt. A capability the deployment cannot offer (web search without a
 * search provider) is left out, so the switch then adds nothing.
 */
export function agentCapabilities(deps: CapabilityDependencies): AgentCapability[] {
  const capabilities: (AgentCapability | undefined)[] = [documentsCapability(deps.db)];
  return capabilities.filter((c): c is AgentCapability => c !== undefined);
}

/** The toolbox of this deployment's capabilities. */
export function createAgentToolbox(deps: CapabilityDependencies): AgentToolbox {
  return new AgentToolbox(agentCapabilities(deps), deps.logger);
}

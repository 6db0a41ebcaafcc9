import type { Kysely } from 'kysely';
import type { Config } from '../../app/config.ts';
import type { Database } from '../../db/schema.ts';
import type { Logger } from '../../observability/logger.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';
import type { AgentCapability } from './agent-tool.ts';
import { calendarCapabilityFromConfig } from './calendar/capability.ts';
import { documentsCapability } from './documents/capability.ts';
import { memoryCapability } from './memory/memory-capability.ts';
import { MemoryStore } from './memory/memory-store.ts';
import { AgentToolbox } from './toolbox.ts';
import {
  braveWithKeyFromConfig,
  webSearchCapability,
  webSearchProviderFromConfig,
} from './websearch/web-search-capability.ts';
import { WorkspaceSearchKeys } from './websearch/workspace-search-keys.ts';

/** What capabilities are built from; the api and the agent worker both have all of it. */
export interface CapabilityDependencies {
  config: Config;
  db: Kysely<Database>;
  /** Opens sealed credentials (calendar connections, workspaces' search keys). */
  secretBox: SecretBox;
  logger: Logger;
}

/**
 * The deployment's managed-Agent capabilities, in the order their instructions appear in
 * the system prompt. Web search without a search engine is left out, so its switch then
 * adds nothing; the calendar stays without a Google client, so the model can tell the user
 * it is unavailable.
 */
export function agentCapabilities(deps: CapabilityDependencies): AgentCapability[] {
  const search = webSearchProviderFromConfig(deps.config);
  const capabilities: (AgentCapability | undefined)[] = [
    memoryCapability(new MemoryStore(deps.db)),
    documentsCapability(deps.db),
    calendarCapabilityFromConfig(deps),
    search &&
      webSearchCapability({
        engine: search,
        maxResults: deps.config.WEB_SEARCH_MAX_RESULTS,
        priceMillicredits: deps.config.WEB_SEARCH_PRICE_MILLICREDITS,
        workspaceKeys: new WorkspaceSearchKeys(deps.db, deps.secretBox),
        withKey: (apiKey) => braveWithKeyFromConfig(deps.config, apiKey),
      }),
  ];
  return capabilities.filter((c): c is AgentCapability => c !== undefined);
}

/** The toolbox of this deployment's capabilities. */
export function createAgentToolbox(deps: CapabilityDependencies): AgentToolbox {
  return new AgentToolbox(agentCapabilities(deps), deps.logger);
}

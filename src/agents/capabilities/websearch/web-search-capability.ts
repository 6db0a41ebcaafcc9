import { z } from 'zod';
import type { Config } from '../../../app/config.ts';
import { type AgentCapability, AgentToolError, defineAgentTool } from '../agent-tool.ts';
import { BraveSearch } from './brave.ts';
import { WebSearchError, type WebSearchProvider } from './provider.ts';
import { SearxngSearch } from './searxng.ts';
import type { WorkspaceSearchKeys } from './workspace-search-keys.ts';

/** The configured search engine, or undefined when none is (`WEB_SEARCH_PROVIDER`). */
export function webSearchProviderFromConfig(config: Config): WebSearchProvider | undefined {
  const choice =
    config.WEB_SEARCH_PROVIDER ??
    (config.BRAVE_SEARCH_API_KEY ? 'brave' : config.SEARXNG_URL ? 'searxng' : 'none');
  const timeoutMs = config.WEB_SEARCH_TIMEOUT_MS;
  if (choice === 'brave') {
    if (!config.BRAVE_SEARCH_API_KEY) return undefined;
    return new BraveSearch({
      apiKey: config.BRAVE_SEARCH_API_KEY,
      baseUrl: config.BRAVE_SEARCH_API_BASE,
      timeoutMs,
    });
  }
  if (choice === 'searxng') {
    if (!config.SEARXNG_URL) return undefined;
    return new SearxngSearch({ baseUrl: config.SEARXNG_URL, timeoutMs });
  }
  return undefined;
}

/** Brave Search with a workspace's own key, at the deployment's Brave origin. */
export function braveWithKeyFromConfig(config: Config, apiKey: string): WebSearchProvider {
  return new BraveSearch({
    apiKey,
    baseUrl: config.BRAVE_SEARCH_API_BASE,
    timeoutMs: config.WEB_SEARCH_TIMEOUT_MS,
  });
}

/** What the web-search capability searches with and charges. */
export interface WebSearchSettings {
  /** The deployment's engine. */
  engine: WebSearchProvider;
  maxResults: number;
  /** Price of one search with the deployment's engine (`WEB_SEARCH_PRICE_MILLICREDITS`). */
  priceMillicredits: number;
  /** Workspaces' own keys: a workspace with one searches Brave with it, uncharged. */
  workspaceKeys: WorkspaceSearchKeys;
  withKey(apiKey: string): WebSearchProvider;
}

export const SEARCH_CREDIT_SHORT =
  'The workspace credit cannot cover a web search; answer without it.';

/**
 * Web search (`web_search_enabled`): a `web_search` tool over the deployment's search
 * engine (or the workspace's own Brave key), for questions about current events or facts
 * the model may not know. A search with the deployment's engine holds its price on the
 * turn first (`context.billing`): when the credit cannot cover it, no search is made and
 * the model reads why; a search the engine answered is charged, a failed one is not.
 */
export function webSearchCapability(settings: WebSearchSettings): AgentCapability {
  const { maxResults } = settings;
  const webSearch = defineAgentTool({
    name: 'web_search',
    description:
      'Search the web for current information (news, prices, schedules, facts you are unsure of). Returns the best results with their titles, addresses and snippets.',
    parameters: z.object({
      query: z.string().trim().min(1).max(400).describe('What to search for, as keywords.'),
    }),
    run: async ({ query }, context, signal) => {
      const ownKey = await settings.workspaceKeys.key(context.workspaceId);
      const provider = ownKey === null ? settings.engine : settings.withKey(ownKey);
      const price = ownKey === null ? settings.priceMillicredits : 0;
      const billing = price > 0 ? context.billing : undefined;
      if (billing && !(await billing.hold(price))) throw new AgentToolError(SEARCH_CREDIT_SHORT);
      try {
        const results = await provider.search(query, maxResults, signal);
        billing?.webSearchMade(price);
        return { query, results };
      } catch (error) {
        if (!(error instanceof WebSearchError)) throw error;
        throw new AgentToolError(
          error.failure === 'rate_limited'
            ? 'Web search is busy right now; answer without it or try again in a moment.'
            : 'Web search is unavailable right now; answer without it.',
        );
      }
    },
  });
  return {
    name: 'web_search',
    needsEndUser: null,
    enabled: (agent) => agent.webSearchEnabled,
    instructions: async () =>
      'You can search the web with the web_search tool when the user asks about current events or facts you are not sure of; say where an answer comes from when it matters.',
    tools: () => [webSearch],
  };
}

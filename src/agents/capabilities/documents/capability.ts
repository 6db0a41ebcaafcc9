import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../../db/schema.ts';
import { type AgentCapability, type AgentToolContext, defineAgentTool } from '../agent-tool.ts';
import { DocumentSearch } from './document-search.ts';
import { DocumentStore } from './document-store.ts';

/** Chunks one search returns (each up to 1,500 characters). */
export const SEARCH_RESULTS = 5;
/** Titles named in the instructions; the rest are counted. */
export const LISTED_TITLES = 20;
/** Longest query the model may send, in characters. */
const MAX_QUERY_CHARS = 500;

/**
 * The `documents` capability: a published Agent with `documents_enabled` searches its
 * knowledge base (`/v1/agents/{id}/documents`). A conversation searches the Agent's shared
 * documents and its own end user's, never another end user's.
 */
export function documentsCapability(db: Kysely<Database>): AgentCapability {
  const store = new DocumentStore(db);
  const search = new DocumentSearch(db);
  const scopeOf = (context: AgentToolContext) => ({
    agentId: context.agentId,
    endUserId: context.endUserId,
  });

  const searchDocuments = defineAgentTool({
    name: 'search_documents',
    description:
      'Search the knowledge base (the documents you were given) for passages about a question. Returns the best matching excerpts with their document title; an empty list when nothing matches. Search before answering questions the documents may cover; use the words the documents would use.',
    parameters: z.object({
      query: z
        .string()
        .min(1)
        .max(MAX_QUERY_CHARS)
        .describe('What to look for: a question or key words, in the language of the documents.'),
    }),
    run: async ({ query }, context) => {
      const hits = await search.search(scopeOf(context), query, SEARCH_RESULTS);
      if (hits.length === 0) {
        return { results: [], note: 'No document matches this query; try other words.' };
      }
      return {
        results: hits.map((hit) => ({
          document_id: hit.documentId,
          title: hit.title,
          excerpt: hit.excerpt,
        })),
      };
    },
  });

  return {
    name: 'documents',
    needsEndUser: 'documents_identity_required',
    enabled: (agent) => agent.publication.documentsEnabled,
    async instructions(context) {
      const { titles, total } = await store.visibleTitles(
        context.agentId,
        context.endUserId,
        LISTED_TITLES,
      );
      if (total === 0) {
        return 'You have a knowledge base, but it holds no documents yet: say so when asked about it rather than guessing.';
      }
      const listed = titles.map(
        (title) => `- ${JSON.stringify(title.replace(/\s+/g, ' ').trim())}`,
      );
      const more = total > titles.length ? [`- and ${total - titles.length} more`] : [];
      return [
        `You have a knowledge base of ${total} document${total === 1 ? '' : 's'}. Search it with the search_documents tool before answering questions it may cover, answer from what it returns, and say when it holds nothing on the question. Its documents (newest first):`,
        ...listed,
        ...more,
      ].join('\n');
    },
    tools: () => [searchDocuments],
  };
}

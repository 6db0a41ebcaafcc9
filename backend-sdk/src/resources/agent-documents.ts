import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  AgentDocument,
  AgentDocumentCreate,
  AgentDocumentList,
  AgentDocumentListQuery,
  AgentDocumentReplace,
  AgentDocumentWithText,
} from '../types/documents.ts';

const path = (agentId: string, documentId?: string) =>
  `/v1/agents/${encodeURIComponent(agentId)}/documents${
    documentId === undefined ? '' : `/${encodeURIComponent(documentId)}`
  }`;

/**
 * `/v1/agents/{agentId}/documents`: an Agent's knowledge base. A document is shared by all
 * the Agent's end users or owned by one (`end_user_id`); a published Agent with
 * `documents_enabled` searches the shared ones and its conversation's end user's own.
 */
export class AgentDocuments {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * Adds a document; it is searchable as soon as this resolves. Not retried after a network
   * failure: a retry could add it twice.
   *
   * @example
   * ```ts
   * const faq = await client.agents.documents.create(agentId, {
   *   title: 'Refund policy',
   *   text: await readFile('refunds.md', 'utf8'),
   *   content_type: 'text/markdown',
   * });
   * ```
   */
  async create(
    agentId: string,
    body: AgentDocumentCreate,
    options?: RequestOptions,
  ): Promise<AgentDocument> {
    const call = {
      method: 'POST',
      path: path(agentId),
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<AgentDocument>(this.http, call, options)).body;
  }

  /**
   * One page of the Agent's documents, newest first, without their text.
   *
   * @example
   * ```ts
   * const { documents } = await client.agents.documents.list(agentId, { end_user_id: userId });
   * ```
   */
  async list(
    agentId: string,
    query: AgentDocumentListQuery = {},
    options?: RequestOptions,
  ): Promise<AgentDocumentList> {
    const call = {
      method: 'GET',
      path: path(agentId),
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentDocumentList>(this.http, call, options)).body;
  }

  /**
   * Every document that matches, page by page, newest first.
   *
   * @example
   * ```ts
   * for await (const document of client.agents.documents.listAll(agentId, { shared: true })) {
   *   console.log(document.title, document.chars);
   * }
   * ```
   */
  async *listAll(
    agentId: string,
    query: Omit<AgentDocumentListQuery, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<AgentDocument> {
    let cursor: string | undefined;
    do {
      const page = await this.list(agentId, { ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.documents;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * One document with its text.
   *
   * @example
   * ```ts
   * const { title, text } = await client.agents.documents.get(agentId, documentId);
   * ```
   */
  async get(
    agentId: string,
    documentId: string,
    options?: RequestOptions,
  ): Promise<AgentDocumentWithText> {
    const call = {
      method: 'GET',
      path: path(agentId, documentId),
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentDocumentWithText>(this.http, call, options)).body;
  }

  /**
   * Replaces the title, text and format of a document (`PUT`; an omitted `content_type` is
   * `text/plain`) and reindexes it; the end user who owns it stays.
   *
   * @example
   * ```ts
   * await client.agents.documents.update(agentId, documentId, { title: 'Refund policy', text });
   * ```
   */
  async update(
    agentId: string,
    documentId: string,
    body: AgentDocumentReplace,
    options?: RequestOptions,
  ): Promise<AgentDocument> {
    const call = {
      method: 'PUT',
      path: path(agentId, documentId),
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentDocument>(this.http, call, options)).body;
  }

  /**
   * Deletes a document; conversations stop finding it at once.
   *
   * @example
   * ```ts
   * await client.agents.documents.delete(agentId, documentId);
   * ```
   */
  async delete(agentId: string, documentId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: path(agentId, documentId),
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }
}

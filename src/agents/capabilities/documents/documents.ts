import type { TenantScope } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../errors.ts';
import {
  type AgentDocument,
  type AgentDocumentWithText,
  type DocumentContent,
  type DocumentFilter,
  type DocumentPage,
  MAX_DOCUMENTS_PER_END_USER,
  MAX_SHARED_DOCUMENTS_PER_AGENT,
} from './document-records.ts';
import type { DocumentStore } from './document-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The rules of Agent documents: an Agent of another workspace or environment, or a
 * document of another Agent, is `404 not_found`; an Agent holds at most
 * {@link MAX_SHARED_DOCUMENTS_PER_AGENT} shared documents and
 * {@link MAX_DOCUMENTS_PER_END_USER} of each end user.
 */
export class AgentDocuments {
  constructor(private readonly store: DocumentStore) {}

  async create(
    scope: TenantScope,
    agentId: string,
    endUserId: string | null,
    content: DocumentContent,
  ): Promise<AgentDocument> {
    const agent = await this.agent(scope, agentId);
    const owner = endUserId?.toLowerCase() ?? null;
    const limit = owner === null ? MAX_SHARED_DOCUMENTS_PER_AGENT : MAX_DOCUMENTS_PER_END_USER;
    // The request is well formed; the Agent's state refuses it until a document is deleted.
    if ((await this.store.count(agent, owner)) >= limit) {
      throw new ApiError(
        'conflict',
        owner === null
          ? `An Agent may have at most ${limit} shared documents.`
          : `An end user may have at most ${limit} documents with one Agent.`,
      );
    }
    return this.store.create(agent, owner, content);
  }

  async list(scope: TenantScope, agentId: string, filter: DocumentFilter): Promise<DocumentPage> {
    const agent = await this.agent(scope, agentId);
    return this.store.list(agent, {
      ...filter,
      endUserId: filter.endUserId?.toLowerCase(),
      before: filter.before?.toLowerCase(),
    });
  }

  async get(
    scope: TenantScope,
    agentId: string,
    documentId: string,
  ): Promise<AgentDocumentWithText> {
    const agent = await this.agent(scope, agentId);
    const found = isUuid(documentId) ? await this.store.get(agent, documentId.toLowerCase()) : null;
    if (!found) throw documentNotFound(documentId);
    return found;
  }

  /** Replaces the title, text and format and reindexes the document. */
  async replace(
    scope: TenantScope,
    agentId: string,
    documentId: string,
    content: DocumentContent,
  ): Promise<AgentDocument> {
    const agent = await this.agent(scope, agentId);
    const replaced = isUuid(documentId)
      ? await this.store.replace(agent, documentId.toLowerCase(), content)
      : null;
    if (!replaced) throw documentNotFound(documentId);
    return replaced;
  }

  async delete(scope: TenantScope, agentId: string, documentId: string): Promise<void> {
    const agent = await this.agent(scope, agentId);
    const deleted = isUuid(documentId)
      ? await this.store.delete(agent, documentId.toLowerCase())
      : false;
    if (!deleted) throw documentNotFound(documentId);
  }

  /** The Agent's id as stored; `404 not_found` when the scope has no such Agent. */
  private async agent(scope: TenantScope, agentId: string): Promise<string> {
    const id = agentId.toLowerCase();
    if (!isUuid(id) || !(await this.store.agentExists(scope.workspaceId, scope.environment, id))) {
      throw new ApiError('not_found', `No Agent ${agentId}.`);
    }
    return id;
  }
}

function isUuid(value: string): boolean {
  return UUID.test(value.toLowerCase());
}

function documentNotFound(id: string): ApiError {
  return new ApiError('not_found', `No document ${id} of this Agent.`);
}

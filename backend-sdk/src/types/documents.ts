import type { RequestJson, ResponseJson } from './openapi.ts';

/** Answer of `GET /v1/agents/{agentId}/documents`: newest first; `next_cursor` null on the last page. */
export type AgentDocumentList = ResponseJson<'listAgentDocuments', 200>;

/** A document of an Agent's knowledge base (`/v1/agents/{agentId}/documents`). */
export type AgentDocument = AgentDocumentList['documents'][number];

/** How a document's text is written. */
export type AgentDocumentContentType = AgentDocument['content_type'];

/** Answer of `GET /v1/agents/{agentId}/documents/{documentId}`: the document and its text. */
export type AgentDocumentWithText = ResponseJson<'getAgentDocument', 200>;

/** Body of `POST /v1/agents/{agentId}/documents`. */
export type AgentDocumentCreate = RequestJson<'createAgentDocument'>;

/** Body of `PUT /v1/agents/{agentId}/documents/{documentId}`: the new content (the owner stays). */
export type AgentDocumentReplace = RequestJson<'replaceAgentDocument'>;

/** Query of `GET /v1/agents/{agentId}/documents`. */
export interface AgentDocumentListQuery {
  /** 1 to 100; default 20. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Only this end user's own documents. */
  end_user_id?: string;
  /** True: only shared documents; false: only end users' own. */
  shared?: boolean;
}

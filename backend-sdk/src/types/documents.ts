/** How a document's text is written. */
export type AgentDocumentContentType = 'text/plain' | 'text/markdown';

/** A document of an Agent's knowledge base (`/v1/agents/{agentId}/documents`). */
export interface AgentDocument {
  /** UUID. */
  id: string;
  agent_id: string;
  /** The end user who owns it; null when all the Agent's end users share it. */
  end_user_id: string | null;
  title: string;
  content_type: AgentDocumentContentType;
  /** Length of the text in characters (Unicode code points). */
  chars: number;
  created_at: string;
  updated_at: string;
}

/** Answer of `GET /v1/agents/{agentId}/documents/{documentId}`: the document and its text. */
export interface AgentDocumentWithText extends AgentDocument {
  text: string;
}

/** Body of `POST /v1/agents/{agentId}/documents`. */
export interface AgentDocumentCreate {
  /** One line, at most 200 characters; the Agent is told the titles it can search. */
  title: string;
  /** At most 200,000 characters; paragraphs separated by a blank line. */
  text: string;
  /** Default `text/plain`. */
  content_type?: AgentDocumentContentType;
  /** Your end user (UUID) who owns it; omit for a document all end users share. */
  end_user_id?: string;
}

/** Body of `PUT /v1/agents/{agentId}/documents/{documentId}`: the new content (the owner stays). */
export type AgentDocumentReplace = Omit<AgentDocumentCreate, 'end_user_id'>;

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

/** Answer of `GET /v1/agents/{agentId}/documents`. */
export interface AgentDocumentList {
  /** Newest first. */
  documents: AgentDocument[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

import type {
  AgentDocument,
  AgentDocumentContentType,
  AgentDocumentWithText,
} from '../../../backend-sdk/src/types/documents.ts';
import type { AgentMemory } from '../../../backend-sdk/src/types/memories.ts';

// The document and memory resources' types are the server library's: one wire shape.
export type { AgentDocument, AgentDocumentContentType, AgentDocumentWithText, AgentMemory };

/** What an Agent's knowledge base holds at most (`limits` of the document list). */
export interface DocumentLimits {
  title_chars: number;
  text_chars: number;
  shared_documents: number;
  documents_per_end_user: number;
}

/** `GET /operator/api/agents/{id}/documents`: one page, newest first, and the limits. */
export interface DocumentListPage {
  documents: AgentDocument[];
  next_cursor: string | null;
  limits: DocumentLimits;
}

/** `GET /operator/api/agents/{id}/memories?end_user_id=`: oldest first, and the limits. */
export interface MemoryList {
  end_user_id: string;
  memories: AgentMemory[];
  limits: { memories_per_end_user: number; memory_chars: number };
}

/** An end user id as the API takes it (a UUID). */
export const END_USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Length in characters as the API counts them (Unicode code points). */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A count with digit grouping: 200,000. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

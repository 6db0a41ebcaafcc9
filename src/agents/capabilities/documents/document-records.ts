/** The formats a document's text may be written in. */
export const DOCUMENT_CONTENT_TYPES = ['text/plain', 'text/markdown'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

/** Longest document, in Unicode code points (a handbook of about 35,000 English words). */
export const MAX_DOCUMENT_CHARS = 200_000;
/** Longest title, in code points. */
export const MAX_TITLE_CHARS = 200;
/** Documents all end users of one Agent share. */
export const MAX_SHARED_DOCUMENTS_PER_AGENT = 1000;
/** Documents one end user owns with one Agent. */
export const MAX_DOCUMENTS_PER_END_USER = 100;
/**
 * Body limit of the routes that carry a document: its largest text as JSON, with room for
 * characters of three UTF-8 bytes and escaped line breaks.
 */
export const DOCUMENT_BODY_LIMIT_BYTES = 1024 * 1024;

/** One document of an Agent's knowledge base, without its text. */
export interface AgentDocument {
  id: string;
  agentId: string;
  /** The end user who owns it; null when all the Agent's end users share it. */
  endUserId: string | null;
  title: string;
  contentType: DocumentContentType;
  /** Length of the text in code points. */
  chars: number;
  createdAt: string;
  updatedAt: string;
}

/** A document with its text. */
export interface AgentDocumentWithText extends AgentDocument {
  text: string;
}

/** What a write gives a document (already schema-checked). */
export interface DocumentContent {
  title: string;
  text: string;
  contentType: DocumentContentType;
}

/** One page of an Agent's documents, newest first. */
export interface DocumentPage {
  documents: AgentDocument[];
  /** The last document's id when older ones remain; pass it as `cursor`. */
  nextCursor: string | null;
}

/** Which documents a page lists. */
export interface DocumentFilter {
  /** Only this end user's own documents. */
  endUserId?: string | undefined;
  /** True: only shared documents; false: only end users' own ones. */
  shared?: boolean | undefined;
  /** Only documents older than this id (the previous page's last). */
  before?: string | undefined;
  limit: number;
}

/** Length of `text` in Unicode code points. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Backend-owned application sessions (protocol v2): what a customer backend supplies when it
 * starts one. The api validates and stores it with the session; the worker runs it. Its
 * version, handshake attribute and limits are the shared protocol's (`@awp/protocol`).
 */

/** What a duplicate call of a tool already running does (names compared, not arguments). */
export type DuplicatePolicy = 'allow' | 'reject' | 'replace' | 'confirm';

/** A tool the backend implements; the model calls it and the worker forwards the call. */
export interface ApplicationTool {
  name: string;
  description: string;
  /** JSON Schema object of the arguments. */
  parameters: Record<string, unknown>;
  /** The user interrupting the Agent cancels a running call. Default false. */
  cancellable: boolean;
  onDuplicate: DuplicatePolicy;
  /** False for dispatch tools whose spoken result arrives later through request reply. */
  runReply: boolean;
}

/** One prior message of the conversation, as the backend keeps it. */
export interface ApplicationMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

/** The application part of a start request, with defaults applied. */
export interface ApplicationSpec {
  instructions: string;
  history: ApplicationMessage[];
  tools: ApplicationTool[];
}

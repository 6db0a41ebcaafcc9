import type { LlmCharge } from '../billing/llm-ledger.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import type { LlmUsage } from '../llm/provider.ts';
import type { MessageRecord } from './conversation-store.ts';

/** One user message sent to a published Agent. */
export interface SendInput {
  scope: TenantScope;
  agentId: string;
  apiKeyId: string | null;
  requestId: string;
  auditId: string;
  conversationId?: string | undefined;
  endUserId?: string | undefined;
  userName?: string | undefined;
  /** The end user's IANA time zone, for the capabilities' tools (calendar). */
  timeZone?: string | undefined;
  text: string;
  clientMessageId?: string | undefined;
  /** Aborted when the client goes away: the model call stops. */
  signal: AbortSignal;
}

/** A message as the API shows it. */
export interface PublicMessage {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  created_at: string;
}

/** What one answered turn used and cost. */
export interface TurnUsage {
  usage: LlmUsage;
  charge: LlmCharge;
}

/**
 * Events of a running turn, in order: text deltas and the tools the model called (each
 * call, then whether it succeeded), then the answer.
 */
export type TurnEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool_call'; id: string; name: string }
  | { type: 'tool_result'; id: string; name: string; ok: boolean }
  | { type: 'message'; message: PublicMessage; usage: TurnUsage };

/** A turn whose credit is reserved and whose model call has started. */
export interface Turn {
  conversationId: string;
  /** The opening message, when this request opened the conversation and the card has one. */
  firstMessage: PublicMessage | null;
  userMessage: PublicMessage;
  /** True when this answers a retry of a turn that already completed (nothing charged). */
  replayed: boolean;
  /** Failures are thrown as `ApiError`; stopping early cancels the call. */
  events: AsyncIterable<TurnEvent>;
}

/** A stored message as the API shows it. */
export function publicMessage(message: MessageRecord): PublicMessage {
  return { id: message.id, role: message.role, text: message.text, created_at: message.createdAt };
}

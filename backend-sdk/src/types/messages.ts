import type { RequestJson, ResponseJson } from './openapi.ts';

/** What a turn cost: `credits` is the measure; `amount`/`currency` are deprecated projections. */
export interface Charge {
  credits: number;
  /** Deprecated: credits / 1000. */
  amount: number;
  /** Deprecated: `USD`. */
  currency: 'USD';
}

/** Token use and cost of one answer. */
export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  charge: Charge;
}

/** A durable message of a text conversation. */
export interface Message {
  /** Durable message id (UUID). */
  id: string;
  role: 'user' | 'assistant';
  text: string;
  created_at: string;
}

/** Body of `POST /v1/agents/{agentId}/messages`. */
export interface SendMessageRequest {
  /** What the end user says (1 to 10,000 characters). */
  text: string;
  /** Continue this conversation; omit to open a new one. */
  conversation_id?: string;
  /** Your end user (UUID); required when the Agent has memory, documents or calendar. */
  end_user_id?: string;
  /** What `{{user}}` stands for in the card. */
  user_name?: string;
  /** The end user's IANA time zone (`Europe/Paris`), for the calendar capability. */
  time_zone?: RequestJson<'sendAgentMessage'>['time_zone'];
  /**
   * Your id of this message (UUID). The SDK fills in a random one when omitted, so its own
   * retries never answer or charge twice.
   */
  message_id?: string;
}

/**
 * Answer of `POST /v1/agents/{agentId}/messages` (JSON): the conversation, its opening
 * message on a new conversation (the card's `first_mes`, else null), the user's message, the
 * Agent's answer and the turn's usage and charge.
 */
export type SendMessageResponse = ResponseJson<'sendAgentMessage', 200>;

/** Query of `GET /v1/agents/{agentId}/messages`. */
export interface MessageListQuery {
  conversation_id: string;
  end_user_id?: string;
  limit?: number;
  cursor?: string;
}

/** One page of `GET /v1/agents/{agentId}/messages`, in order; answers carry their usage. */
export type MessageList = ResponseJson<'listAgentMessages', 200>;

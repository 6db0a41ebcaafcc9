import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { ConversationMessagesTable, Database, LlmRequestStatus } from '../db/schema.ts';
import { inScope, type TenantScope } from '../db/tenant-scope.ts';
import { parseToolRounds, type StoredToolRound, serializeToolRounds } from './tool-history.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface ConversationRecord {
  id: string;
  workspaceId: string;
  environment: Environment;
  agentId: string;
  publicationId: string;
  endUserId: string | null;
  userName: string | null;
  createdAt: string;
}

/** A stored message; usage and cost only on assistant turns. */
export interface MessageRecord {
  id: string;
  conversationId: string;
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  clientMessageId: string | null;
  requestId: string | null;
  usage: { inputTokens: number; outputTokens: number; costMillicredits: number } | null;
  /** The tool rounds of an answer whose turn called tools; null otherwise. */
  toolRounds: StoredToolRound[] | null;
  createdAt: string;
}

/** The newest model call of a user message, as the ledger recorded it. */
export interface TurnRecord {
  requestId: string;
  status: LlmRequestStatus;
  assistantMessageId: string | null;
}

/** A message to write; `seq` is taken as the next of its conversation. */
export interface NewMessage {
  id: string;
  conversationId: string;
  workspaceId: string;
  role: 'user' | 'assistant';
  text: string;
  clientMessageId?: string | null;
  requestId?: string | null;
  publicationId?: string | null;
  llmProvider?: string | null;
  llmModel?: string | null;
  usage?: { inputTokens: number; outputTokens: number; costMillicredits: number } | null;
  toolRounds?: readonly StoredToolRound[];
  createdAt: string;
}

/** Conversations and their messages in the database. */
export class ConversationStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** A conversation of this workspace, environment and Agent; null when there is none. */
  async get(scope: TenantScope, agentId: string, id: string): Promise<ConversationRecord | null> {
    const row = await this.db
      .selectFrom('conversations')
      .selectAll()
      .$call(inScope(scope))
      .where('agent_id', '=', agentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row
      ? {
          id: row.id,
          workspaceId: row.workspace_id,
          environment: row.environment,
          agentId: row.agent_id,
          publicationId: row.publication_id,
          endUserId: row.end_user_id,
          userName: row.user_name,
          createdAt: row.created_at,
        }
      : null;
  }

  async create(trx: Db, conversation: ConversationRecord): Promise<void> {
    await trx
      .insertInto('conversations')
      .values({
        id: conversation.id,
        workspace_id: conversation.workspaceId,
        environment: conversation.environment,
        agent_id: conversation.agentId,
        publication_id: conversation.publicationId,
        end_user_id: conversation.endUserId,
        user_name: conversation.userName,
        created_at: conversation.createdAt,
      })
      .execute();
  }

  /** Appends a message after the last one of its conversation. */
  async append(trx: Db, message: NewMessage): Promise<void> {
    const last = await trx
      .selectFrom('conversation_messages')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('conversation_id', '=', message.conversationId)
      .executeTakeFirst();
    await trx
      .insertInto('conversation_messages')
      .values({
        id: message.id,
        conversation_id: message.conversationId,
        workspace_id: message.workspaceId,
        seq: Number(last?.seq ?? 0) + 1,
        role: message.role,
        text: message.text,
        client_message_id: message.clientMessageId ?? null,
        request_id: message.requestId ?? null,
        publication_id: message.publicationId ?? null,
        llm_provider: message.llmProvider ?? null,
        llm_model: message.llmModel ?? null,
        input_tokens: message.usage?.inputTokens ?? null,
        output_tokens: message.usage?.outputTokens ?? null,
        cost_millicredits: message.usage?.costMillicredits ?? null,
        tool_rounds: serializeToolRounds(message.toolRounds ?? []),
        created_at: message.createdAt,
      })
      .execute();
  }

  async deleteMessage(trx: Db, id: string): Promise<void> {
    await trx.deleteFrom('conversation_messages').where('id', '=', id).execute();
  }

  /** The last `limit` messages of a conversation, oldest first. */
  async recent(conversationId: string, limit: number): Promise<MessageRecord[]> {
    const rows = await this.db
      .selectFrom('conversation_messages')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map(toMessage);
  }

  /** Messages after `afterSeq` in order, at most `limit`. */
  async page(conversationId: string, afterSeq: number, limit: number): Promise<MessageRecord[]> {
    const rows = await this.db
      .selectFrom('conversation_messages')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toMessage);
  }

  async message(id: string): Promise<MessageRecord | null> {
    const row = await this.db
      .selectFrom('conversation_messages')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toMessage(row) : null;
  }

  /** The user message a client sent with `message_id`, with its conversation. */
  async byClientMessageId(
    workspaceId: string,
    clientMessageId: string,
  ): Promise<{ message: MessageRecord; agentId: string; endUserId: string | null } | null> {
    const row = await this.db
      .selectFrom('conversation_messages as m')
      .innerJoin('conversations as c', 'c.id', 'm.conversation_id')
      .selectAll('m')
      .select(['c.agent_id', 'c.end_user_id'])
      .where('m.workspace_id', '=', workspaceId)
      .where('m.client_message_id', '=', clientMessageId)
      .executeTakeFirst();
    return row
      ? { message: toMessage(row), agentId: row.agent_id, endUserId: row.end_user_id }
      : null;
  }

  /** The newest model call that answers `userMessageId`. */
  async turnOf(userMessageId: string): Promise<TurnRecord | null> {
    const row = await this.db
      .selectFrom('llm_requests')
      .select(['request_id', 'status', 'assistant_message_id'])
      .where('user_message_id', '=', userMessageId)
      .orderBy('created_at', 'desc')
      .orderBy('request_id', 'desc')
      .executeTakeFirst();
    return row
      ? {
          requestId: row.request_id,
          status: row.status,
          assistantMessageId: row.assistant_message_id,
        }
      : null;
  }
}

function toMessage(row: Selectable<ConversationMessagesTable>): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    seq: Number(row.seq),
    role: row.role,
    text: row.text,
    clientMessageId: row.client_message_id,
    requestId: row.request_id,
    usage:
      row.role === 'assistant' && row.input_tokens !== null
        ? {
            inputTokens: Number(row.input_tokens),
            outputTokens: Number(row.output_tokens ?? 0),
            costMillicredits: Number(row.cost_millicredits ?? 0),
          }
        : null,
    toolRounds: parseToolRounds(row.tool_rounds),
    createdAt: row.created_at,
  };
}

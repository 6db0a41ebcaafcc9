import { randomUUID } from 'node:crypto';
import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type {
  Agent,
  AgentCreate,
  AgentList,
  AgentListQuery,
  AgentUpdate,
  CharacterCard,
} from '../types/agents.ts';
import type {
  MessageList,
  MessageListQuery,
  SendMessageRequest,
  SendMessageResponse,
} from '../types/messages.ts';
import type { AgentSessionStart, AgentSessionStarted } from '../types/sessions.ts';
import { AgentDocuments } from './agent-documents.ts';
import { AgentMemories } from './memories.ts';
import { type MessageStreamEvent, streamMessage } from './message-stream.ts';

const path = (agentId: string, rest = '') => `/v1/agents/${encodeURIComponent(agentId)}${rest}`;

/**
 * `/v1/agents`: create, read, edit, delete and publish Agents; cards, documents, messages,
 * sessions.
 */
export class Agents {
  /** What the Agents remember about your end users (`memory_enabled`). */
  readonly memories: AgentMemories;
  /**
   * The Agents' knowledge bases. @example `await client.agents.documents.list(agentId)`
   */
  readonly documents: AgentDocuments;

  /** @internal */
  constructor(private readonly http: HttpContext) {
    this.memories = new AgentMemories(http);
    this.documents = new AgentDocuments(http);
  }

  /**
   * Creates an Agent (draft revision 1). Not retried after a network failure: a retry
   * could meet its own slug (`ConflictError`).
   *
   * @example
   * ```ts
   * const agent = await client.agents.create({
   *   slug: 'support',
   *   voice_id: voices[0]!.id,
   *   character_card: { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'Ada' } },
   * });
   * ```
   */
  async create(body: AgentCreate, options?: RequestOptions): Promise<Agent> {
    const call = {
      method: 'POST',
      path: '/v1/agents',
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<Agent>(this.http, call, options)).body;
  }

  /**
   * One page of Agents in creation order (Agents without a public voice are omitted).
   *
   * @example
   * ```ts
   * const { agents: [support] } = await client.agents.list({ slug: 'support' });
   * ```
   */
  async list(query: AgentListQuery = {}, options?: RequestOptions): Promise<AgentList> {
    const call = {
      method: 'GET',
      path: '/v1/agents',
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentList>(this.http, call, options)).body;
  }

  /**
   * Every Agent, page by page.
   *
   * @example
   * ```ts
   * for await (const agent of client.agents.listAll()) console.log(agent.slug);
   * ```
   */
  async *listAll(
    query: Omit<AgentListQuery, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<Agent> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.agents;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * One Agent; `AgentNotApiReadyError` when it has no public voice selection.
   *
   * @example
   * ```ts
   * const agent = await client.agents.get(agentId);
   * ```
   */
  async get(agentId: string, options?: RequestOptions): Promise<Agent> {
    const call = { method: 'GET', path: path(agentId), expect: 'json', idempotent: true } as const;
    return (await send<Agent>(this.http, call, options)).body;
  }

  /**
   * Edits an Agent (a new draft revision); publish to let sessions use it.
   *
   * @example
   * ```ts
   * await client.agents.update(agentId, { instructions: 'Answer in one sentence.' });
   * ```
   */
  async update(agentId: string, body: AgentUpdate, options?: RequestOptions): Promise<Agent> {
    const call = {
      method: 'PATCH',
      path: path(agentId),
      json: body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<Agent>(this.http, call, options)).body;
  }

  /**
   * Deletes an Agent with its revisions and publications.
   *
   * @example
   * ```ts
   * await client.agents.delete(agentId);
   * ```
   */
  async delete(agentId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: path(agentId),
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }

  /**
   * Publishes the current draft; sessions and session tokens use the active publication.
   *
   * @example
   * ```ts
   * const { active_publication } = await client.agents.publish(agentId);
   * ```
   */
  async publish(agentId: string, options?: RequestOptions): Promise<Agent> {
    const call = {
      method: 'POST',
      path: path(agentId, '/publish'),
      json: {},
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<Agent>(this.http, call, options)).body;
  }

  /**
   * Replaces the Agent's card from a card file: a V3, V2 or V1 JSON object, or the bytes of
   * a PNG card image.
   *
   * @example
   * ```ts
   * await client.agents.importCharacterCard(agentId, await readFile('ada.png'));
   * ```
   */
  async importCharacterCard(
    agentId: string,
    card: Record<string, unknown> | Uint8Array,
    options?: RequestOptions,
  ): Promise<Agent> {
    const body =
      card instanceof Uint8Array
        ? { raw: { bytes: card, contentType: 'image/png' } }
        : { json: card };
    const call = {
      method: 'POST',
      path: path(agentId, '/character-card'),
      ...body,
      expect: 'json',
      idempotent: false,
    } as const;
    return (await send<Agent>(this.http, call, options)).body;
  }

  /**
   * The draft's card as V3 JSON.
   *
   * @example
   * ```ts
   * const card = await client.agents.exportCharacterCard(agentId);
   * ```
   */
  async exportCharacterCard(agentId: string, options?: RequestOptions): Promise<CharacterCard> {
    const call = {
      method: 'GET',
      path: path(agentId, '/character-card'),
      query: { format: 'json' },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<CharacterCard>(this.http, call, options)).body;
  }

  /**
   * The draft's card as a PNG card image (the avatar picture with `ccv3` and `chara` chunks).
   *
   * @example
   * ```ts
   * await writeFile('ada.png', await client.agents.exportCharacterCardPng(agentId));
   * ```
   */
  async exportCharacterCardPng(agentId: string, options?: RequestOptions): Promise<Uint8Array> {
    const call = {
      method: 'GET',
      path: path(agentId, '/character-card'),
      query: { format: 'png' },
      expect: 'bytes',
      idempotent: true,
    } as const;
    return (await send<Uint8Array>(this.http, call, options)).body;
  }

  /**
   * Sends a text message to the published Agent and waits for its answer. A `message_id` is
   * generated when omitted, which makes retries safe: the service answers a repeated id
   * with the first answer and charges once.
   *
   * @example
   * ```ts
   * const first = await client.agents.sendMessage(agentId, { text: 'Hello!' });
   * const next = await client.agents.sendMessage(agentId, {
   *   conversation_id: first.conversation_id,
   *   text: 'And tomorrow?',
   * });
   * ```
   */
  async sendMessage(
    agentId: string,
    body: SendMessageRequest,
    options?: RequestOptions,
  ): Promise<SendMessageResponse> {
    const json = { ...body, message_id: body.message_id ?? randomUUID() };
    const call = {
      method: 'POST',
      path: path(agentId, '/messages'),
      json,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<SendMessageResponse>(this.http, call, options)).body;
  }

  /**
   * Sends a text message and streams the answer as server-sent events: `conversation`,
   * `delta` (repeated), `message`, `usage`, `done`. An `error` event mid-answer is thrown
   * as its typed error; breaking out of the loop cancels the answer.
   *
   * @example
   * ```ts
   * for await (const { event, data } of client.agents.streamMessage(agentId, { text: 'Hi' })) {
   *   if (event === 'delta') process.stdout.write(data.text);
   *   if (event === 'usage') console.log('credits', data.charge.credits);
   * }
   * ```
   */
  streamMessage(
    agentId: string,
    body: SendMessageRequest,
    options?: RequestOptions,
  ): AsyncGenerator<MessageStreamEvent> {
    return streamMessage(this.http, agentId, body, options);
  }

  /**
   * One page of a conversation's messages, in order.
   *
   * @example
   * ```ts
   * const { messages } = await client.agents.listMessages(agentId, { conversation_id });
   * ```
   */
  async listMessages(
    agentId: string,
    query: MessageListQuery,
    options?: RequestOptions,
  ): Promise<MessageList> {
    const call = {
      method: 'GET',
      path: path(agentId, '/messages'),
      query: { ...query },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<MessageList>(this.http, call, options)).body;
  }

  /**
   * Starts a live conversation with an Agent session token, as the client library does
   * (the token is used up). Useful for native apps whose backend relays the answer.
   *
   * @example
   * ```ts
   * const { token } = await client.tokens.createAgentSessionToken(agentId);
   * const session = await client.agents.startSession(agentId, token, {
   *   sessionContext: { userName: 'Sam' },
   * });
   * ```
   */
  async startSession(
    agentId: string,
    sessionToken: string,
    body: AgentSessionStart = {},
    options?: RequestOptions,
  ): Promise<AgentSessionStarted> {
    const call = {
      method: 'POST',
      path: path(agentId, '/sessions'),
      json: body,
      expect: 'json',
      idempotent: false,
      bearer: sessionToken,
    } as const;
    return (await send<AgentSessionStarted>(this.http, call, options)).body;
  }
}

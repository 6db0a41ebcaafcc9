import { v7 as uuidv7 } from 'uuid';
import type { PublishedAgent } from '../agents/agent-store.ts';
import type { Agents } from '../agents/agents.ts';
import type { AgentToolbox } from '../agents/capabilities/toolbox.ts';
import type { LlmLedger } from '../billing/llm-ledger.ts';
import { TurnInProgressError, violatesUnique } from '../billing/llm-ledger.ts';
import { llmCostMillicredits } from '../billing/pricing.ts';
import { lookahead, takePage } from '../db/page.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { usageBound } from '../llm/bounds.ts';
import type { LlmModelInfo, LlmProvider } from '../llm/provider.ts';
import type { LlmCatalog } from '../llm/registry.ts';
import type { ConversationRecord, ConversationStore, MessageRecord } from './conversation-store.ts';
import { promptNames, renderCardPrompt, renderOpeningMessage } from './prompt.ts';
import { replayTurn } from './replay.ts';
import { fitHistory, HISTORY_MESSAGES, type HistoryTurn } from './tool-history.ts';
import type { PublicMessage, SendInput, Turn } from './turn.ts';
import { runTurn } from './turn-runner.ts';
import { TurnToolBilling } from './turn-tool-billing.ts';

export type { PublicMessage, SendInput, Turn, TurnEvent, TurnUsage } from './turn.ts';
export { publicMessage } from './turn.ts';

/** A turn about to run: its conversation, new messages and the history of its prompt. */
interface OpenTurn {
  /** The stored conversation, or null when this turn starts one. */
  conversation: ConversationRecord | null;
  conversationId: string;
  userName: string | null;
  now: string;
  firstMessage: PublicMessage | null;
  userMessage: PublicMessage;
  history: HistoryTurn[];
}

/**
 * Text conversations with published Agents: each turn renders the active publication's
 * card with the conversation so far and the instructions of its capabilities, reserves
 * credit for the worst case, streams the model's answer (running the capabilities' tools
 * it calls, `turn-runner.ts`) and settles the exact cost. A turn that fails or is
 * cancelled leaves no message behind and costs nothing.
 */
export class Conversations {
  constructor(
    private readonly deps: {
      agents: Agents;
      llm: LlmCatalog;
      store: ConversationStore;
      ledger: LlmLedger;
      /** The Agent capabilities' tools and instructions (memory, documents, ...). */
      toolbox: AgentToolbox;
      maxOutputTokens: number;
    },
  ) {}

  async send(input: SendInput): Promise<Turn> {
    const published = await this.published(input.scope, input.agentId);
    this.deps.toolbox.requireEndUser(published, input.endUserId);
    if (input.clientMessageId !== undefined) {
      const replay = await replayTurn(this.deps.store, input);
      if (replay) return replay;
    }
    const { info, provider } = await this.model(published);
    const turn = await this.#openTurn(input, published);
    const billing = new TurnToolBilling(this.deps.ledger, input.requestId, input.scope.workspaceId);
    const tools = await this.deps.toolbox.prepare(published, {
      workspaceId: input.scope.workspaceId,
      environment: input.scope.environment,
      agentId: input.agentId,
      endUserId: input.endUserId ?? null,
      timeZone: input.timeZone ?? null,
      origin: { kind: 'conversation', conversationId: turn.conversationId },
      billing,
    });
    const card = published.characterCard.data;
    const request = {
      model: info.name,
      messages: renderCardPrompt(card, {
        userName: turn.userName,
        history: turn.history,
        capabilityInstructions: tools.instructions,
      }),
      ...(tools.definitions.length > 0 ? { tools: [...tools.definitions] } : {}),
      thinkingLevel: published.thinkingLevel,
      maxOutputTokens: this.deps.maxOutputTokens,
    };
    const reserve = llmCostMillicredits(usageBound(provider.name, request), info);
    await this.#reserve(input, published, turn, { provider: provider.name, info, reserve });
    const { conversationId, firstMessage, userMessage } = turn;
    return {
      conversationId,
      firstMessage,
      userMessage,
      replayed: false,
      events: runTurn({
        input,
        published,
        provider,
        info,
        request,
        tools,
        billing,
        ledger: this.deps.ledger,
        store: this.deps.store,
        ids: { conversationId, userMessageId: userMessage.id },
      }),
    };
  }

  /**
   * The turn's conversation (the end user's own, or a new one with the card's opening
   * message first), its new user message, and the history the prompt is rendered from.
   */
  async #openTurn(input: SendInput, published: PublishedAgent): Promise<OpenTurn> {
    let conversation: ConversationRecord | null = null;
    let history: HistoryTurn[] = [];
    if (input.conversationId !== undefined) {
      conversation = await this.deps.store.get(input.scope, input.agentId, input.conversationId);
      if (!conversation || conversation.endUserId !== (input.endUserId ?? null)) {
        throw new ApiError(
          'not_found',
          `No conversation ${input.conversationId} of this end user.`,
        );
      }
      history = fitHistory(await this.deps.store.recent(conversation.id, HISTORY_MESSAGES));
    }
    const userName = input.userName ?? conversation?.userName ?? null;
    const card = published.characterCard.data;
    const now = new Date().toISOString();
    const conversationId = conversation?.id ?? uuidv7();
    const opening = conversation
      ? undefined
      : renderOpeningMessage(card, promptNames(card, userName));
    const firstMessage: PublicMessage | null =
      opening === undefined
        ? null
        : { id: uuidv7(), role: 'assistant', text: opening, created_at: now };
    if (firstMessage) history.push({ role: 'assistant', text: firstMessage.text });
    const userMessage: PublicMessage = {
      id: uuidv7(),
      role: 'user',
      text: input.text,
      created_at: now,
    };
    history.push({ role: 'user', text: input.text });
    return { conversation, conversationId, userName, now, firstMessage, userMessage, history };
  }

  /**
   * Reserves the turn's worst-case cost and, in the same transaction, stores the new
   * conversation and its messages; a concurrent request with the same message_id that
   * won the insert makes this one a turn in progress.
   */
  async #reserve(
    input: SendInput,
    published: PublishedAgent,
    turn: OpenTurn,
    model: { provider: string; info: LlmModelInfo; reserve: number },
  ): Promise<void> {
    const { store } = this.deps;
    const { conversationId, now, firstMessage, userMessage } = turn;
    try {
      await this.deps.ledger.start(
        {
          requestId: input.requestId,
          auditId: input.auditId,
          workspaceId: input.scope.workspaceId,
          environment: input.scope.environment,
          apiKeyId: input.apiKeyId,
          source: 'messages',
          agentId: input.agentId,
          publicationId: published.publication.id,
          conversationId,
          conversationIsNew: turn.conversation === null,
          userMessageId: userMessage.id,
          provider: model.provider,
          model: model.info,
          reserveMillicredits: model.reserve,
        },
        async (trx) => {
          if (!turn.conversation) {
            await store.create(trx, {
              id: conversationId,
              workspaceId: input.scope.workspaceId,
              environment: input.scope.environment,
              agentId: input.agentId,
              publicationId: published.publication.id,
              endUserId: input.endUserId ?? null,
              userName: turn.userName,
              createdAt: now,
            });
          }
          const base = { conversationId, workspaceId: input.scope.workspaceId, createdAt: now };
          if (firstMessage) {
            await store.append(trx, {
              ...base,
              id: firstMessage.id,
              role: 'assistant',
              text: firstMessage.text,
            });
          }
          await store.append(trx, {
            ...base,
            id: userMessage.id,
            role: 'user',
            text: input.text,
            clientMessageId: input.clientMessageId ?? null,
            requestId: input.requestId,
          });
        },
      );
    } catch (error) {
      if (violatesUnique(error, ['client_id', 'client_message_id']))
        throw new TurnInProgressError();
      throw error;
    }
  }

  /** One page of a conversation's messages, for the end user it belongs to. */
  async list(input: {
    scope: TenantScope;
    agentId: string;
    conversationId: string;
    endUserId?: string | undefined;
    cursor?: string | undefined;
    limit: number;
  }): Promise<{ messages: MessageRecord[]; nextCursor: string | null }> {
    await this.deps.agents.get(input.scope, input.agentId);
    const conversation = await this.deps.store.get(
      input.scope,
      input.agentId,
      input.conversationId,
    );
    if (!conversation || conversation.endUserId !== (input.endUserId ?? null)) {
      throw new ApiError('not_found', `No conversation ${input.conversationId} of this end user.`);
    }
    let afterSeq = 0;
    if (input.cursor !== undefined) {
      const after = await this.deps.store.message(input.cursor);
      if (!after || after.conversationId !== conversation.id) {
        throw new ApiError('invalid_request', 'cursor is not a message of this conversation.');
      }
      afterSeq = after.seq;
    }
    const rows = await this.deps.store.page(conversation.id, afterSeq, lookahead(input.limit));
    const page = takePage(rows, input.limit, (last) => last.id);
    return { messages: page.rows, nextCursor: page.nextCursor };
  }

  private async published(scope: TenantScope, agentId: string): Promise<PublishedAgent> {
    const published = await this.deps.agents.activePublication(scope, agentId);
    if (published) return published;
    await this.deps.agents.get(scope, agentId);
    throw new ApiError('agent_not_published', 'Publish the Agent before sending it messages.');
  }

  private async model(
    published: PublishedAgent,
  ): Promise<{ info: LlmModelInfo; provider: LlmProvider }> {
    const { llmProvider, llmModel } = published;
    const info = llmProvider && llmModel ? this.deps.llm.model(llmProvider, llmModel) : undefined;
    const provider = llmProvider ? this.deps.llm.provider(llmProvider) : undefined;
    if (!info || !provider) {
      throw new ApiError(
        'conflict',
        'The published Agent uses a language model this deployment no longer offers; select one and publish again.',
      );
    }
    return { info, provider: await provider };
  }
}

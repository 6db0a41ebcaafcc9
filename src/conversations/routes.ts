import { v7 as uuidv7 } from 'uuid';
import { requireAuth } from '../auth/context.ts';
import { errorBody, toApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { SSE_HEADERS, sseFrame, wantsEventStream } from '../http/sse.ts';
import type { Conversations, Turn, TurnEvent } from './conversations.ts';
import {
  listMessagesQuerySchema,
  messageBody,
  messageEventsSchema,
  messageListSchema,
  type SendMessageBody,
  sendMessageBodySchema,
  sendMessageResponseSchema,
  storedMessageBody,
  usageBody,
} from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;
const TAGS = ['agents'];

/**
 * The events of a streamed answer as server-sent events: `conversation`, `delta`s (and
 * `tool_call` / `tool_result` for each capability tool the model uses), `message`,
 * `usage`, `done`, or an `error` (the spec's error object) that ends it.
 */
async function* sseBody(
  turn: Turn,
  first: IteratorResult<TurnEvent>,
  iterator: AsyncIterator<TurnEvent>,
  requestId: string,
): AsyncGenerator<string> {
  let next = first;
  try {
    yield sseFrame('conversation', {
      conversation_id: turn.conversationId,
      first_message: turn.firstMessage ? messageBody(turn.firstMessage) : null,
      user_message: messageBody(turn.userMessage),
    });
    while (!next.done) {
      const event = next.value;
      if (event.type === 'delta') {
        yield sseFrame('delta', { text: event.text });
      } else if (event.type === 'tool_call') {
        yield sseFrame('tool_call', { id: event.id, name: event.name });
      } else if (event.type === 'tool_result') {
        yield sseFrame('tool_result', { id: event.id, name: event.name, ok: event.ok });
      } else {
        yield sseFrame('message', messageBody(event.message));
        yield sseFrame('usage', usageBody(event.usage.usage, event.usage.charge));
      }
      next = await iterator.next();
    }
    yield sseFrame('done', { conversation_id: turn.conversationId });
  } catch (error) {
    yield sseFrame('error', errorBody(toApiError(error), requestId));
  } finally {
    // Stopped early (the client went away): the turn closes as cancelled.
    await iterator.return?.();
  }
}

/** `POST` and `GET /v1/agents/{agentId}/messages`: text conversations with a published Agent. */
export function messageRoutes(conversations: Conversations): AnyRoute[] {
  return [
    defineRoute<SendMessageBody>({
      method: 'POST',
      path: '/v1/agents/:agentId/messages',
      operationId: 'sendAgentMessage',
      summary:
        "Send a message to the published Agent and get its answer; without `conversation_id` a new conversation opens with the card's `first_mes`. With `Accept: text/event-stream` the answer streams as server-sent events.",
      tags: TAGS,
      auth: AUTH,
      body: sendMessageBodySchema,
      responses: {
        200: {
          description:
            "The answer (JSON), or with `Accept: text/event-stream` the events `conversation`, `delta`... (with `tool_call` and `tool_result` around each tool of the Agent's capabilities the model uses), `message`, `usage`, `done`, or a final `error` event with the error object. A failure before the first answer token is an ordinary HTTP error.",
          schema: sendMessageResponseSchema,
          events: messageEventsSchema,
          headers: {
            'Idempotent-Replayed': '`true` when a retried `message_id` got the first answer again.',
          },
        },
      },
      errors: [
        'not_found',
        'conflict',
        'agent_not_published',
        'memory_identity_required',
        'documents_identity_required',
        'calendar_identity_required',
        'insufficient_credit',
        'provider_error',
        'provider_unavailable',
        'provider_auth_missing',
      ],
      handle: async ({ request, auth, body }) => {
        const caller = requireAuth(auth);
        const turn = await conversations.send({
          scope: { workspaceId: caller.workspaceId, environment: caller.environment },
          agentId: request.params.agentId ?? '',
          apiKeyId: caller.keyId,
          requestId: request.requestId,
          auditId: `aud_${uuidv7()}`,
          conversationId: body.conversation_id?.toLowerCase(),
          endUserId: body.end_user_id?.toLowerCase(),
          userName: body.user_name,
          timeZone: body.time_zone,
          text: body.text,
          clientMessageId: body.message_id?.toLowerCase(),
          signal: request.signal,
        });
        const headers: Record<string, string> = { 'cache-control': 'no-store' };
        if (turn.replayed) headers['idempotent-replayed'] = 'true';
        const iterator = turn.events[Symbol.asyncIterator]();
        if (wantsEventStream(request.headers.accept)) {
          // Headers wait for the model's first event: a failure before any answer keeps
          // its HTTP status (and Retry-After) even on a streamed request.
          const first = await iterator.next();
          return {
            status: 200,
            headers: { ...headers, ...SSE_HEADERS },
            stream: sseBody(turn, first, iterator, request.requestId),
          };
        }
        let answer: Extract<TurnEvent, { type: 'message' }> | undefined;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          if (next.value.type === 'message') answer = next.value;
        }
        if (!answer) throw new Error('the turn ended without an answer');
        return {
          status: 200,
          headers,
          body: {
            conversation_id: turn.conversationId,
            first_message: turn.firstMessage ? messageBody(turn.firstMessage) : null,
            user_message: messageBody(turn.userMessage),
            message: messageBody(answer.message),
            usage: usageBody(answer.usage.usage, answer.usage.charge),
          },
        };
      },
    }),
    defineRoute<undefined, ReturnType<typeof listMessagesQuerySchema.parse>>({
      method: 'GET',
      path: '/v1/agents/:agentId/messages',
      operationId: 'listAgentMessages',
      summary:
        'Messages of one conversation in order, one page; a conversation of an end user is visible only with its `end_user_id`.',
      tags: TAGS,
      auth: AUTH,
      query: listMessagesQuerySchema,
      responses: { 200: { description: 'One page of messages.', schema: messageListSchema } },
      errors: ['not_found'],
      handle: async ({ request, auth, query }) => {
        const caller = requireAuth(auth);
        const conversationId = query.conversation_id.toLowerCase();
        const page = await conversations.list({
          scope: { workspaceId: caller.workspaceId, environment: caller.environment },
          agentId: request.params.agentId ?? '',
          conversationId,
          endUserId: query.end_user_id?.toLowerCase(),
          cursor: query.cursor?.toLowerCase(),
          limit: query.limit,
        });
        return {
          status: 200,
          headers: { 'cache-control': 'no-store' },
          body: {
            conversation_id: conversationId,
            messages: page.messages.map(storedMessageBody),
            next_cursor: page.nextCursor,
          },
        };
      },
    }),
  ];
}

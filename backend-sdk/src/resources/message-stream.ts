import { randomUUID } from 'node:crypto';
import {
  AwpAbortError,
  AwpConnectionError,
  AwpError,
  AwpInvalidResponseError,
  AwpStreamClosedError,
  apiError,
  isApiErrorBody,
} from '../errors.ts';
import { type HttpContext, send } from '../internal/http.ts';
import { readSse } from '../internal/sse.ts';
import type { RequestOptions } from '../options.ts';
import type { Message, MessageUsage, SendMessageRequest } from '../types/messages.ts';

/** One event of a streamed answer, in the order the service sends them. */
export type MessageStreamEvent =
  | {
      event: 'conversation';
      data: { conversation_id: string; first_message: Message | null; user_message: Message };
    }
  | { event: 'delta'; data: { text: string } }
  /** The model called a tool of the Agent's capabilities (memory, documents, ...). */
  | { event: 'tool_call'; data: { id: string; name: string } }
  /** That call ended; `ok` false when it failed (the model was told why). */
  | { event: 'tool_result'; data: { id: string; name: string; ok: boolean } }
  | { event: 'message'; data: Message }
  | { event: 'usage'; data: MessageUsage }
  | { event: 'done'; data: { conversation_id: string } };

const EVENTS = new Set([
  'conversation',
  'delta',
  'tool_call',
  'tool_result',
  'message',
  'usage',
  'done',
]);

/**
 * `POST /v1/agents/{agentId}/messages` with `Accept: text/event-stream`: the answer's
 * events as they arrive. A failure before the first event is an ordinary typed error
 * (retried like `sendMessage`: the generated `message_id` makes repeats safe); a failure
 * after it is the stream's `error` event, thrown as its typed error. Leaving the loop
 * early cancels the request.
 */
export function streamMessage(
  http: HttpContext,
  agentId: string,
  body: SendMessageRequest,
  options: RequestOptions = {},
): AsyncGenerator<MessageStreamEvent> {
  const call = {
    method: 'POST',
    path: `/v1/agents/${encodeURIComponent(agentId)}/messages`,
    json: { ...body, message_id: body.message_id ?? randomUUID() },
    expect: 'stream',
    idempotent: true,
  } as const;
  return sseEvents<MessageStreamEvent>(http, call, options, EVENTS, 'done');
}

/**
 * The events of a server-sent event answer of the service, typed as `E`: events named in
 * `known` are yielded, newer ones skipped; an `error` event is thrown as its typed error;
 * the stream must end with `last`, else `AwpStreamClosedError`.
 */
export async function* sseEvents<E extends { event: string; data: unknown }>(
  http: HttpContext,
  call: Parameters<typeof send>[1] & { expect: 'stream' },
  options: RequestOptions,
  known: ReadonlySet<string>,
  last: string,
): AsyncGenerator<E> {
  const answer = await send<ReadableStream<Uint8Array>>(http, call, options);
  const requestId = answer.requestId;
  let finished = false;
  try {
    for await (const block of readSse(answer.body)) {
      let data: unknown;
      try {
        data = JSON.parse(block.data);
      } catch (cause) {
        throw new AwpInvalidResponseError({
          code: 'invalid_response',
          detail: `event ${block.event} without JSON data`,
          requestId,
          retryable: false,
          cause,
        });
      }
      if (block.event === 'error') {
        throw isApiErrorBody(data)
          ? apiError(data)
          : new AwpInvalidResponseError({
              code: 'invalid_response',
              detail: 'an error event without code',
              requestId,
              retryable: false,
            });
      }
      if (!known.has(block.event)) continue; // events newer than this library
      yield { event: block.event, data } as E;
      if (block.event === last) {
        finished = true;
        return;
      }
    }
  } catch (error) {
    if (error instanceof AwpError) throw error;
    if (options.signal?.aborted) {
      throw new AwpAbortError({
        code: 'aborted',
        detail: 'the call was aborted',
        requestId,
        retryable: false,
        cause: options.signal.reason,
      });
    }
    throw new AwpConnectionError({
      code: 'connection_error',
      detail: `the event stream failed: ${(error as Error)?.message ?? String(error)}`,
      requestId,
      retryable: true,
      cause: error,
    });
  }
  if (!finished) {
    throw new AwpStreamClosedError({
      code: 'stream_closed',
      detail: `the stream ended before ${last}`,
      requestId,
      retryable: true,
    });
  }
}

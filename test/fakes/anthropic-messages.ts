import type { IncomingMessage } from 'node:http';
import {
  DEFAULT_TEXT,
  DEFAULT_USAGE,
  FakeLlmServer,
  type LlmFakeOptions,
  type LlmScript,
  type SseFrame,
  splitInto,
  vendorId,
} from './llm-server.ts';

export type { LlmScript, RecordedLlmRequest } from './llm-server.ts';

/** Anthropic's documented error types per HTTP status. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * A fake Anthropic Messages API: `POST /v1/messages` with the key in `x-api-key` (or
 * `Authorization: Bearer`, as the 1.x SDK sends it) and an `anthropic-version` header, answering `stream: true` with named server-sent events:
 * `message_start` (input usage), `ping`, per content block `content_block_start` /
 * `content_block_delta` (`text_delta`, `input_json_delta`, `thinking_delta`,
 * `signature_delta`) / `content_block_stop`, `message_delta` (stop reason, cumulative
 * output usage) and `message_stop`. Errors are `{"type":"error","error":{type,message}}`,
 * also as an `event: error` inside a stream; request ids in `request-id`.
 */
export class FakeAnthropicMessages extends FakeLlmServer {
  protected readonly credentialHeaders = ['x-api-key', 'authorization'];

  static async start(options: LlmFakeOptions = {}): Promise<FakeAnthropicMessages> {
    const fake = new FakeAnthropicMessages(options);
    await fake.listen();
    return fake;
  }

  protected credential(req: IncomingMessage): string | undefined {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string') return key;
    // The SDK for API version 2026-10-21 sends the key as a bearer token.
    return /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  }

  protected answerHeaders(): Record<string, string> {
    return { 'request-id': vendorId('req_') };
  }

  protected errorBody(status: number): unknown {
    const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return {
      type: 'error',
      error: { type, message: `Fake ${type}.` },
      request_id: vendorId('req_'),
    };
  }

  protected validate(
    req: IncomingMessage,
    path: string,
    body: unknown,
  ): { status: number; body: unknown } | undefined {
    const invalid = (message: string) => ({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message } },
    });
    if (req.method !== 'POST' || path !== '/v1/messages')
      return { status: 404, body: this.errorBody(404) };
    if (typeof req.headers['anthropic-version'] !== 'string')
      return invalid('anthropic-version: header is required');
    const b = body as {
      model?: unknown;
      max_tokens?: unknown;
      messages?: Array<{ role?: unknown }>;
      thinking?: { type?: string; budget_tokens?: number };
      stream?: unknown;
    } | null;
    if (typeof b?.model !== 'string') return invalid('model: Field required');
    if (typeof b.max_tokens !== 'number') return invalid('max_tokens: Field required');
    if (!Array.isArray(b.messages) || b.messages.length === 0)
      return invalid('messages: at least one message is required');
    if (b.messages.some((m) => m.role !== 'user' && m.role !== 'assistant')) {
      return invalid(
        'messages: roles must be "user" or "assistant"; use the top-level system parameter',
      );
    }
    if (b.messages[0]?.role !== 'user')
      return invalid('messages: the first message must use the "user" role');
    if (b.thinking?.type === 'enabled') {
      const budget = b.thinking.budget_tokens ?? 0;
      if (budget < 1024) return invalid('thinking.budget_tokens: must be at least 1024');
      if (b.max_tokens <= budget)
        return invalid('max_tokens must be greater than thinking.budget_tokens');
    }
    if (b.stream !== true) return invalid('This fake only streams.');
    return undefined;
  }

  protected streamErrorFrame(errorType: string): SseFrame {
    return {
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: errorType, message: 'Overloaded' } }),
      content: false,
    };
  }

  protected frames(body: unknown, script: LlmScript): SseFrame[] {
    const request = body as { model: string };
    const usage = script.usage ?? DEFAULT_USAGE;
    // Failures count `content_block_delta` events: the deltas a client sees as answer data.
    const frame = (event: string, data: Record<string, unknown>): SseFrame => ({
      event,
      data: JSON.stringify({ type: event, ...data }),
      content: event === 'content_block_delta',
    });
    const frames: SseFrame[] = [
      frame('message_start', {
        message: {
          id: vendorId('msg_'),
          type: 'message',
          role: 'assistant',
          content: [],
          model: request.model,
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      }),
      frame('ping', {}),
    ];
    let index = 0;
    if (script.thinking !== undefined) {
      frames.push(
        frame('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const piece of splitInto(script.thinking, 2)) {
        frames.push(
          frame('content_block_delta', {
            index,
            delta: { type: 'thinking_delta', thinking: piece },
          }),
        );
      }
      frames.push(
        frame('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: `sig-${script.thinking.length}` },
        }),
      );
      frames.push(frame('content_block_stop', { index }));
      index += 1;
    }
    const calls = script.toolCalls ?? [];
    const text = script.text ?? (calls.length > 0 ? [] : DEFAULT_TEXT);
    if (text.length > 0) {
      frames.push(
        frame('content_block_start', { index, content_block: { type: 'text', text: '' } }),
      );
      for (const delta of text)
        frames.push(
          frame('content_block_delta', { index, delta: { type: 'text_delta', text: delta } }),
        );
      frames.push(frame('content_block_stop', { index }));
      index += 1;
    }
    for (const call of calls) {
      frames.push(
        frame('content_block_start', {
          index,
          content_block: {
            type: 'tool_use',
            id: call.id ?? vendorId('toolu_'),
            name: call.name,
            input: {},
          },
        }),
      );
      // Anthropic's first input_json_delta is often empty.
      for (const fragment of ['', ...splitInto(call.arguments, script.argumentFragments ?? 3)]) {
        frames.push(
          frame('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: fragment },
          }),
        );
      }
      frames.push(frame('content_block_stop', { index }));
      index += 1;
    }
    const stopReason = script.truncated ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn';
    frames.push(
      frame('message_delta', {
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.outputTokens },
      }),
    );
    frames.push(frame('message_stop', {}));
    return frames;
  }
}

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

const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided.',
  },
  403: {
    type: 'invalid_request_error',
    code: 'unsupported_country_region_territory',
    message: 'Forbidden.',
  },
  404: {
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model does not exist.',
  },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests.',
  },
  500: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request.',
  },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded.' },
};

/**
 * A fake OpenAI-compatible Chat Completions server: `POST /v1/chat/completions` with
 * `Authorization: Bearer KEY`, answering `stream: true` requests as server-sent
 * `data: {chat.completion.chunk}` lines ended by `data: [DONE]`: a role chunk, content
 * deltas, tool-call deltas (id and name first, arguments in fragments keyed by `index`),
 * a finish chunk and, with `stream_options.include_usage`, a usage chunk with no choices.
 * Errors are `{"error": {message, type, param, code}}`, request ids in `x-request-id`.
 */
export class FakeOpenAiChat extends FakeLlmServer {
  protected readonly credentialHeaders = ['authorization'];

  static async start(options: LlmFakeOptions = {}): Promise<FakeOpenAiChat> {
    const fake = new FakeOpenAiChat(options);
    await fake.listen();
    return fake;
  }

  /** Base URL to configure (`OPENAI_BASE_URL`), with the `/v1` path. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  protected credential(req: IncomingMessage): string | undefined {
    const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return match?.[1];
  }

  protected answerHeaders(): Record<string, string> {
    return { 'x-request-id': vendorId('req_'), 'openai-processing-ms': '12' };
  }

  protected errorBody(status: number): unknown {
    const error = ERRORS[status] ?? ERRORS[500];
    return { error: { ...error, param: null } };
  }

  protected validate(
    req: IncomingMessage,
    path: string,
    body: unknown,
  ): { status: number; body: unknown } | undefined {
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return {
        status: 404,
        body: { error: { ...ERRORS[404], message: `Unknown path ${path}`, param: null } },
      };
    }
    const b = body as { model?: unknown; messages?: unknown; stream?: unknown } | null;
    if (typeof b?.model !== 'string' || !Array.isArray(b.messages) || b.messages.length === 0) {
      return { status: 400, body: this.errorBody(400) };
    }
    if (b.stream !== true) {
      return {
        status: 400,
        body: { error: { ...ERRORS[400], message: 'This fake only streams.', param: 'stream' } },
      };
    }
    return undefined;
  }

  protected streamErrorFrame(errorType: string): SseFrame {
    return {
      data: JSON.stringify({
        error: { message: 'The server had an error.', type: errorType, param: null, code: null },
      }),
      content: false,
    };
  }

  protected frames(body: unknown, script: LlmScript): SseFrame[] {
    const request = body as { model: string; stream_options?: { include_usage?: boolean } };
    const withUsage = request.stream_options?.include_usage === true;
    const id = vendorId('chatcmpl-');
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices: unknown[], content: boolean, usage: unknown = null): SseFrame => ({
      data: JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: request.model,
        system_fingerprint: 'fp_fake',
        choices,
        ...(withUsage ? { usage } : {}),
      }),
      content,
    });
    const choice = (delta: unknown, finish: string | null = null) => ({
      index: 0,
      delta,
      logprobs: null,
      finish_reason: finish,
    });
    const frames: SseFrame[] = [
      chunk([choice({ role: 'assistant', content: '', refusal: null })], false),
    ];
    const calls = script.toolCalls ?? [];
    const text = script.text ?? (calls.length > 0 ? [] : DEFAULT_TEXT);
    for (const delta of text) frames.push(chunk([choice({ content: delta })], true));
    calls.forEach((call, index) => {
      frames.push(
        chunk(
          [
            choice({
              tool_calls: [
                {
                  index,
                  id: call.id ?? vendorId('call_'),
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            }),
          ],
          true,
        ),
      );
      for (const fragment of splitInto(call.arguments, script.argumentFragments ?? 3)) {
        frames.push(
          chunk([choice({ tool_calls: [{ index, function: { arguments: fragment } }] })], true),
        );
      }
    });
    const finish = script.truncated ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
    frames.push(chunk([choice({}, finish)], false));
    if (withUsage) {
      const usage = script.usage ?? DEFAULT_USAGE;
      frames.push(
        chunk([], false, {
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        }),
      );
    }
    frames.push({ data: '[DONE]', content: false });
    return frames;
  }
}

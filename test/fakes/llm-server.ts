import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How a fake language-model vendor fails one request:
 *
 * - `status`: answer `status` with the vendor's error body (`retryAfterSeconds` adds a
 *   `retry-after` header).
 * - `hang`: read the request and never answer.
 * - `stall_after_deltas`: stream until `deltas` content events were sent, then go silent
 *   with the connection open.
 * - `reset_after_deltas`: the same, then reset the TCP connection.
 * - `end_after_deltas`: the same, then end the response properly, without the vendor's
 *   closing events (a truncated stream).
 * - `stream_error_after_deltas`: the same, then the vendor's in-stream error event of
 *   `errorType` (Anthropic `overloaded_error`, OpenAI `server_error`) and the end.
 */
export type LlmFakeFailure =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterSeconds?: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'stall_after_deltas'; readonly deltas: number }
  | { readonly kind: 'reset_after_deltas'; readonly deltas: number }
  | { readonly kind: 'end_after_deltas'; readonly deltas: number }
  | {
      readonly kind: 'stream_error_after_deltas';
      readonly deltas: number;
      readonly errorType: string;
    };

/** A tool call the fake model makes; `arguments` is sent in `fragments` pieces. */
export interface ScriptedToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

/** What the fake model answers to one request. */
export interface LlmScript {
  /** Text deltas, in order. Default: a greeting in four deltas. */
  readonly text?: readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Pieces each tool call's arguments are split into. Default 3. */
  readonly argumentFragments?: number;
  /** Reasoning text (Anthropic thinking blocks). */
  readonly thinking?: string;
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** `length` makes the vendor say it hit the token limit. */
  readonly truncated?: boolean;
  /** Pause after the response headers, before the first event. */
  readonly firstTokenDelayMs?: number;
  /** Pause between events. */
  readonly deltaDelayMs?: number;
  readonly failure?: LlmFakeFailure;
}

export const DEFAULT_TEXT = ['Hello', ' there!', ' How can', ' I help?'];
export const DEFAULT_USAGE = { inputTokens: 21, outputTokens: 9 };

/** One server-sent event; `content` marks events that carry answer data (counted by failures). */
export interface SseFrame {
  readonly event?: string;
  readonly data: string;
  readonly content: boolean;
}

/** How a recorded exchange ended, as the fake saw it. */
export type LlmRequestOutcome = 'pending' | 'completed' | 'client_closed' | 'broken';

/** One request as the fake received it; the credential appears only as booleans. */
export interface RecordedLlmRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  /** Lower-case headers, the credential header left out. */
  readonly headers: Readonly<Record<string, string>>;
  readonly auth: { readonly present: boolean; readonly valid: boolean };
  /** Parsed JSON body (the raw text when it was not JSON). */
  readonly body: unknown;
  status: number | undefined;
  /** Headers the fake answered with (the vendor request id among them). */
  responseHeaders: Readonly<Record<string, string>>;
  /** Events written so far. */
  framesSent: number;
  outcome: LlmRequestOutcome;
  /** Resolves once the exchange ended. */
  readonly ended: Promise<LlmRequestOutcome>;
}

export interface LlmFakeOptions {
  /** The key the fake accepts; `null` makes it a keyless server (any or no credential). */
  readonly apiKey?: string | null;
  /** Defaults for every script (the benchmark sets a fixed `firstTokenDelayMs`). */
  readonly defaults?: Omit<LlmScript, 'failure'>;
}

/**
 * The HTTP machinery both language-model fakes share: a real server on 127.0.0.1 on an
 * ephemeral port, request recording, scripts queued per request, injected failures and
 * paced server-sent events. A subclass speaks its vendor's wire format.
 */
export abstract class FakeLlmServer {
  readonly apiKey: string | null;
  readonly requests: RecordedLlmRequest[] = [];
  readonly #server: Server;
  readonly #scripts: LlmScript[] = [];
  readonly #defaults: Omit<LlmScript, 'failure'>;
  #url = '';

  protected constructor(options: LlmFakeOptions = {}) {
    this.apiKey =
      options.apiKey === undefined ? `test-key-${randomBytes(8).toString('hex')}` : options.apiKey;
    this.#defaults = options.defaults ?? {};
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => res.destroy());
    });
  }

  get url(): string {
    return this.#url;
  }

  /** Queues the answer of the next request that has no script yet. */
  script(script: LlmScript): this {
    this.#scripts.push(script);
    return this;
  }

  async listen(): Promise<void> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  /** Headers that can carry the credential; left out of recorded headers. */
  protected abstract readonly credentialHeaders: readonly string[];
  /** The credential the request presented, if any. */
  protected abstract credential(req: IncomingMessage): string | undefined;
  /** The vendor's error answer when the request is malformed (after auth), else undefined. */
  protected abstract validate(
    req: IncomingMessage,
    path: string,
    body: unknown,
  ): { status: number; body: unknown } | undefined;
  protected abstract errorBody(status: number): unknown;
  protected abstract streamErrorFrame(errorType: string): SseFrame;
  /** The events answering `body` with `script`. */
  protected abstract frames(body: unknown, script: LlmScript): SseFrame[];
  /** Headers of every answer (the vendor's request id). */
  protected abstract answerHeaders(): Record<string, string>;

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!this.credentialHeaders.includes(name) && value !== undefined) {
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
    }
    const presented = this.credential(req);
    let resolveEnded = (_: LlmRequestOutcome) => {};
    const recorded: RecordedLlmRequest = {
      index: this.requests.length,
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://fake').pathname,
      headers,
      auth: {
        present: presented !== undefined,
        valid: this.apiKey === null || presented === this.apiKey,
      },
      body,
      status: undefined,
      responseHeaders: {},
      framesSent: 0,
      outcome: 'pending',
      ended: new Promise((resolve) => {
        resolveEnded = resolve;
      }),
    };
    this.requests.push(recorded);
    res.on('close', () => {
      if (recorded.outcome === 'pending') {
        recorded.outcome = res.writableFinished ? 'completed' : 'client_closed';
      }
      resolveEnded(recorded.outcome);
    });
    const script = { ...this.#defaults, ...this.#scripts.shift() };
    const sendError = (status: number, errorBody: unknown, extra: Record<string, string> = {}) => {
      const text = JSON.stringify(errorBody);
      recorded.status = status;
      recorded.responseHeaders = {
        ...this.answerHeaders(),
        ...extra,
        'content-type': 'application/json',
      };
      res.writeHead(status, recorded.responseHeaders);
      res.end(text);
    };
    if (!recorded.auth.valid) return sendError(401, this.errorBody(401));
    const invalid = this.validate(req, recorded.path, body);
    if (invalid) return sendError(invalid.status, invalid.body);
    const failure = script.failure;
    if (failure?.kind === 'hang') return;
    if (failure?.kind === 'status') {
      const extra: Record<string, string> =
        failure.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(failure.retryAfterSeconds) };
      return sendError(failure.status, this.errorBody(failure.status), extra);
    }
    recorded.status = 200;
    recorded.responseHeaders = {
      ...this.answerHeaders(),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    };
    res.writeHead(200, recorded.responseHeaders);
    res.flushHeaders();
    await delay(script.firstTokenDelayMs ?? 0);
    let deltas = 0;
    const limit =
      failure !== undefined && 'deltas' in failure ? failure.deltas : Number.POSITIVE_INFINITY;
    for (const frame of this.frames(body, script)) {
      if (frame.content && deltas >= limit) break;
      if (res.destroyed) return;
      await write(res, frame);
      recorded.framesSent += 1;
      if (frame.content) deltas += 1;
      if (script.deltaDelayMs) await delay(script.deltaDelayMs);
    }
    if (res.destroyed) return;
    switch (failure?.kind) {
      case 'stall_after_deltas':
        return;
      case 'reset_after_deltas':
        recorded.outcome = 'broken';
        await delay(30);
        req.socket.resetAndDestroy();
        return;
      case 'stream_error_after_deltas':
        await write(res, this.streamErrorFrame(failure.errorType));
        res.end();
        return;
      default:
        res.end();
    }
  }
}

function write(res: ServerResponse, frame: SseFrame): Promise<void> {
  const text = `${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${frame.data}\n\n`;
  return new Promise((resolve) => res.write(text, () => resolve()));
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Splits `text` into at most `pieces` nearly equal, non-empty parts. */
export function splitInto(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts.length > 0 ? parts : [''];
}

/** A vendor-style opaque id. */
export function vendorId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('base64url')}`;
}

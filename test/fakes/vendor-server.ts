import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { speechPcm } from './speech-audio.ts';

/**
 * A way a fake vendor can fail one request:
 *
 * - `status`: answer `status` with the vendor's error body (or `body` when given).
 * - `hang`: read the request and never answer.
 * - `stall_after_bytes`: send 200 and `bytes` bytes of audio (0 = headers only), then go
 *   silent with the connection open.
 * - `reset_after_bytes`: send 200 and `bytes` bytes of audio, then reset the TCP
 *   connection (RST).
 * - `close_after_bytes`: send 200 and `bytes` bytes of audio, then close the connection
 *   (FIN) without ending the chunked body.
 * - `end_after_bytes`: send 200 and `bytes` bytes of audio, then end the body properly
 *   (a vendor that stops early; 0 = an empty 200).
 */
export type FakeFailure =
  | { readonly kind: 'status'; readonly status: number; readonly body?: unknown }
  | { readonly kind: 'hang' }
  | { readonly kind: 'stall_after_bytes'; readonly bytes: number }
  | { readonly kind: 'reset_after_bytes'; readonly bytes: number }
  | { readonly kind: 'close_after_bytes'; readonly bytes: number }
  | { readonly kind: 'end_after_bytes'; readonly bytes: number };

/** How a recorded request ended, as the fake saw it. */
export type RequestOutcome =
  /** Still being answered. */
  | 'pending'
  /** The whole response was written. */
  | 'completed'
  /** The client closed the connection before the response ended. */
  | 'client_closed'
  /** The fake broke the connection on purpose (reset or close failure). */
  | 'broken';

/** One request as the fake received it; secrets appear only as booleans. */
export interface RecordedRequest {
  /** 0-based position among all requests the fake received. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Lower-case request headers, the credential header left out. */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether a credential was presented and whether it was the fake's key. */
  readonly auth: { readonly present: boolean; readonly valid: boolean };
  /** Parsed body (JSON or MessagePack), or the raw text when it could not be parsed. */
  readonly body: unknown;
  /** Which TCP connection carried the request (1-based, in accept order). */
  readonly connectionId: number;
  /** The failure injected into this request, if any. */
  readonly failure: FakeFailure | undefined;
  /** Status the fake answered, once it answered. */
  status: number | undefined;
  /** Headers the fake answered with, once it answered. */
  responseHeaders: Readonly<Record<string, string>>;
  audioBytesSent: number;
  outcome: RequestOutcome;
  /** Resolves once the exchange ended, with its outcome. */
  readonly ended: Promise<RequestOutcome>;
}

/** What a vendor fake decided to answer to a request (after auth and validation). */
export type VendorAnswer =
  | { readonly kind: 'error'; readonly status: number; readonly body: unknown }
  /** A JSON answer of a management endpoint (voices, models). */
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown }
  | {
      readonly kind: 'audio';
      /** Text to speak. */
      readonly text: string;
      readonly sampleRateHz: number;
      /** Speaking-speed multiplier the vendor was asked for. */
      readonly speed?: number;
      /** Bytes sent before the PCM (a WAV header), if any. */
      readonly prefix?: Buffer;
      /**
       * Wraps each piece of PCM (whole samples) as the vendor sends it (a JSON line with
       * timings); `offset` is its first byte in `audio`. Default: raw PCM.
       */
      readonly frame?: (piece: Buffer, offset: number, audio: Buffer) => Buffer;
      readonly headers: Readonly<Record<string, string>>;
    };

/** Settings shared by the vendor fakes. */
export interface FakeVendorOptions {
  /** The key the fake accepts. Default `test-key-0123456789`. */
  readonly apiKey?: string;
  /** Pause between audio chunks. Default 10 ms. */
  readonly chunkDelayMs?: number;
  /** Audio is sent in about this many chunks. Default 10. */
  readonly chunks?: number;
  /**
   * Only the first this-many characters of a text are spoken, so long texts stay fast to
   * synthesize. Default 600.
   */
  readonly maxSpokenChars?: number;
}

/** Which requests a queued failure applies to; omitted fields match anything. */
export interface RequestMatch {
  readonly method?: string;
  readonly path?: RegExp;
}

/** A multipart/form-data body as the fake parsed it. */
export interface MultipartBody {
  readonly kind: 'multipart';
  /** Text fields, every value of repeated fields in order. */
  readonly fields: Readonly<Record<string, string[]>>;
  readonly files: readonly {
    readonly field: string;
    readonly fileName: string;
    readonly contentType: string;
    readonly data: Buffer;
  }[];
}

/** Parses a multipart/form-data body with undici's parser (what `fetch` servers use). */
export async function parseMultipart(raw: Buffer, contentType: string): Promise<MultipartBody> {
  const form = await new Response(new Uint8Array(raw), {
    headers: { 'content-type': contentType },
  }).formData();
  const fields: Record<string, string[]> = {};
  const files: MultipartBody['files'][number][] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      fields[field] = [...(fields[field] ?? []), value];
    } else {
      files.push({
        field,
        fileName: value.name,
        contentType: value.type,
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  return { kind: 'multipart', fields, files };
}

interface PendingFailure {
  readonly failure: FakeFailure;
  readonly match: RequestMatch | undefined;
  remaining: number;
}

/**
 * The HTTP machinery every vendor fake shares: a real server on 127.0.0.1, request
 * recording, connection tracking, injected failures, a gate to hold answers, and PCM
 * streamed in chunks (odd-sized, so clients must handle samples split across reads).
 * A subclass decides what a request means (auth, validation, audio parameters).
 */
export abstract class FakeVendorServer {
  readonly apiKey: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #chunkDelayMs: number;
  readonly #chunks: number;
  readonly #maxSpokenChars: number;
  readonly #failures: PendingFailure[] = [];
  readonly #failuresAt = new Map<number, FakeFailure>();
  readonly #connectionIds = new WeakMap<Socket, number>();
  #connections = 0;
  #inFlight = 0;
  #maxInFlight = 0;
  #gate: { promise: Promise<void>; open: () => void } | undefined;
  #url = '';

  protected constructor(options: FakeVendorOptions = {}) {
    this.apiKey = options.apiKey ?? 'test-key-0123456789';
    this.#chunkDelayMs = options.chunkDelayMs ?? 10;
    this.#chunks = options.chunks ?? 10;
    this.#maxSpokenChars = options.maxSpokenChars ?? 600;
    this.#server = createServer((req, res) => {
      // A client that goes away mid-request ends the exchange; nothing to report.
      this.#handle(req, res).catch(() => res.destroy());
    });
    this.#server.on('connection', (socket: Socket) => {
      this.#connections += 1;
      this.#connectionIds.set(socket, this.#connections);
    });
  }

  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.#url;
  }

  /** TCP connections accepted so far. */
  get connectionCount(): number {
    return this.#connections;
  }

  /** Requests being answered right now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Most requests answered at the same time so far. */
  get maxInFlight(): number {
    return this.#maxInFlight;
  }

  /**
   * Makes the next `times` requests (matching `match`, when given) fail with `failure`,
   * queued after earlier ones.
   */
  failNext(failure: FakeFailure, times = 1, match?: RequestMatch): void {
    this.#failures.push({ failure, match, remaining: times });
  }

  /** Makes the request with 0-based index `index` fail with `failure` (before `failNext`). */
  failAt(index: number, failure: FakeFailure): void {
    this.#failuresAt.set(index, failure);
  }

  /** Holds every answer (after the request was recorded) until {@link releaseResponses}. */
  holdResponses(): void {
    if (this.#gate !== undefined) return;
    let open = () => {};
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.#gate = { promise, open };
  }

  /** Lets held and future requests be answered. */
  releaseResponses(): void {
    this.#gate?.open();
    this.#gate = undefined;
  }

  /** Starts listening on 127.0.0.1 on an ephemeral port. */
  async listen(): Promise<void> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
  }

  /** Stops the server and drops every connection, hanging ones included. */
  async close(): Promise<void> {
    this.releaseResponses();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  /** Header holding the credential; left out of recorded headers. */
  protected abstract readonly credentialHeader: string;

  /** Whether the request presented a credential and whether it matched. */
  protected abstract checkAuth(req: IncomingMessage): { present: boolean; valid: boolean };

  /** Parses the body as the vendor would. */
  protected abstract parseBody(req: IncomingMessage, raw: Buffer): unknown;

  /**
   * Called once a request is recorded, before held answers wait: where a vendor acts on a
   * request (creates a voice) even when its answer never reaches the client.
   */
  protected accept(_request: RecordedRequest): void {}

  /** What to answer to a request that carries no injected failure. */
  protected abstract answer(request: RecordedRequest): VendorAnswer;

  /** The vendor's error body for an injected `status` failure. */
  protected abstract errorBody(status: number): unknown;

  /** Headers the vendor adds to every answer (a request id). */
  protected answerHeaders(): Record<string, string> {
    return {};
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === this.credentialHeader || value === undefined) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    let body: unknown;
    try {
      const type = req.headers['content-type'] ?? '';
      body = type.startsWith('multipart/form-data')
        ? await parseMultipart(raw, type)
        : this.parseBody(req, raw);
    } catch {
      body = raw.toString('utf8');
    }
    let resolveEnded = (_: RequestOutcome) => {};
    const ended = new Promise<RequestOutcome>((resolve) => {
      resolveEnded = resolve;
    });
    const recorded: RecordedRequest = {
      index: this.requests.length,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      auth: this.checkAuth(req),
      body,
      connectionId: this.#connectionIds.get(req.socket) ?? 0,
      failure: this.#takeFailure(this.requests.length, req.method ?? 'GET', url.pathname),
      status: undefined,
      responseHeaders: {},
      audioBytesSent: 0,
      outcome: 'pending',
      ended,
    };
    this.requests.push(recorded);
    this.#inFlight += 1;
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight);
    res.on('close', () => {
      this.#inFlight -= 1;
      if (recorded.outcome === 'pending') {
        recorded.outcome = res.writableFinished ? 'completed' : 'client_closed';
      }
      resolveEnded(recorded.outcome);
    });

    if (recorded.failure === undefined) this.accept(recorded);
    if (this.#gate !== undefined) await this.#gate.promise;
    if (res.destroyed) return;
    const failure = recorded.failure;
    if (failure?.kind === 'status') {
      this.#sendError(
        res,
        recorded,
        failure.status,
        failure.body ?? this.errorBody(failure.status),
      );
      return;
    }
    if (failure?.kind === 'hang') return;
    const answer = this.answer(recorded);
    if (answer.kind === 'error' || answer.kind === 'json') {
      this.#sendError(res, recorded, answer.status, answer.body);
      return;
    }
    await this.#sendAudio(req, res, recorded, answer, failure);
  }

  #takeFailure(index: number, method: string, path: string): FakeFailure | undefined {
    const at = this.#failuresAt.get(index);
    if (at !== undefined) return at;
    const position = this.#failures.findIndex(
      ({ match }) =>
        match === undefined ||
        ((match.method === undefined || match.method === method) &&
          (match.path === undefined || match.path.test(path))),
    );
    const pending = this.#failures[position];
    if (pending === undefined) return undefined;
    pending.remaining -= 1;
    if (pending.remaining <= 0) this.#failures.splice(position, 1);
    return pending.failure;
  }

  #sendError(res: ServerResponse, recorded: RecordedRequest, status: number, body: unknown): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers = {
      ...this.answerHeaders(),
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    };
    recorded.status = status;
    recorded.responseHeaders = headers;
    res.writeHead(status, headers);
    res.end(text);
  }

  async #sendAudio(
    req: IncomingMessage,
    res: ServerResponse,
    recorded: RecordedRequest,
    answer: Extract<VendorAnswer, { kind: 'audio' }>,
    failure: FakeFailure | undefined,
  ): Promise<void> {
    const pcm = await speechPcm(
      Array.from(answer.text).slice(0, this.#maxSpokenChars).join(''),
      answer.sampleRateHz,
      answer.speed,
    );
    const audio = answer.prefix === undefined ? pcm : Buffer.concat([answer.prefix, pcm]);
    if (res.destroyed) return;
    const headers = { ...this.answerHeaders(), ...answer.headers };
    recorded.status = 200;
    recorded.responseHeaders = headers;
    res.writeHead(200, headers);
    res.flushHeaders();
    const limit = failure !== undefined && 'bytes' in failure ? failure.bytes : audio.byteLength;
    // Odd-sized chunks: samples straddle reads, as they do on a real network.
    let chunkBytes = Math.max(1001, Math.ceil(audio.byteLength / this.#chunks));
    if (chunkBytes % 2 === 0) chunkBytes += 1;
    // Framed pieces carry whole samples.
    if (answer.frame) chunkBytes += 1;
    let offset = 0;
    while (offset < Math.min(limit, audio.byteLength)) {
      if (res.destroyed) return;
      const end = Math.min(offset + chunkBytes, limit, audio.byteLength);
      const piece = audio.subarray(offset, end);
      const flushed = new Promise<void>((resolve) =>
        res.write(answer.frame ? answer.frame(piece, offset, audio) : piece, () => resolve()),
      );
      recorded.audioBytesSent += end - offset;
      offset = end;
      await flushed;
      await delay(this.#chunkDelayMs);
    }
    if (res.destroyed) return;
    switch (failure?.kind) {
      case 'stall_after_bytes':
        return;
      case 'reset_after_bytes':
        recorded.outcome = 'broken';
        // Give the client time to read what was sent before the reset.
        await delay(30);
        req.socket.resetAndDestroy();
        return;
      case 'close_after_bytes':
        recorded.outcome = 'broken';
        await delay(30);
        req.socket.end();
        return;
      default:
        res.end();
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A fake of Deepgram's live transcription WebSocket (`GET /v1/listen`, upgraded), speaking
 * its documented protocol:
 *
 * - handshake: `Authorization: Token <key>` (else HTTP 401 with Deepgram's error body);
 *   query `encoding=linear16`, `sample_rate`, `channels=1`, `model` (else HTTP 400);
 * - audio as binary messages (even byte counts, s16le at `sample_rate`); a text message is
 *   JSON `KeepAlive`, `Finalize` or `CloseStream`, anything else closes with 1008;
 * - `Results` (interim while audio arrives when `interim_results=true`; `is_final` with
 *   `from_finalize` after `Finalize`), `UtteranceEnd` after a final when `utterance_end_ms`
 *   is set, and after `CloseStream` the remaining final, `Metadata` and a 1000 close;
 * - no audio or message for `idleTimeoutMs` closes with 1011 `NET-0001`, as Deepgram does.
 *
 * What was "said" comes from a script: `say(text)` queues the transcript of the next
 * utterance (audio up to a `Finalize` or `CloseStream`). Interim results reveal its words
 * one at a time, one more per `interimEveryMs` of audio, never the whole text.
 */
export interface FakeDeepgramOptions {
  apiKey: string;
  idleTimeoutMs?: number;
  interimEveryMs?: number;
}

/** A way the fake fails the next connection. */
export type FakeDeepgramFailure =
  /** Answer the handshake with this HTTP status. */
  | { kind: 'handshake_status'; status: number }
  /** Destroy the TCP connection (no close frame) once this much audio arrived. */
  | { kind: 'drop_after_bytes'; bytes: number }
  /** Close with this code and reason once this much audio arrived. */
  | { kind: 'close_after_bytes'; bytes: number; code: number; reason: string };

/** One connection as the fake saw it. */
export interface RecordedConnection {
  query: Record<string, string>;
  authValid: boolean;
  /** HTTP status of a refused handshake; undefined when upgraded. */
  refusedWith: number | undefined;
  audioBytes: number;
  binaryMessages: number;
  /** `type` of each JSON message received, in order. */
  controlMessages: string[];
  /** Close code the fake sent or saw. */
  closeCode: number | undefined;
  closed: Promise<void>;
}

export interface FakeDeepgram {
  /** `http://127.0.0.1:PORT`, for `DEEPGRAM_BASE_URL`. */
  readonly url: string;
  readonly connections: RecordedConnection[];
  say(text: string): void;
  /** Forgets unused script lines and failures (between tests). */
  reset(): void;
  failNext(failure: FakeDeepgramFailure): void;
  close(): Promise<void>;
}

const BYTES_PER_SAMPLE = 2;

export async function startFakeDeepgram(options: FakeDeepgramOptions): Promise<FakeDeepgram> {
  const script: string[] = [];
  const failures: FakeDeepgramFailure[] = [];
  const connections: RecordedConnection[] = [];
  const sockets = new Set<Socket>();
  const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
  const interimEveryMs = options.interimEveryMs ?? 250;
  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ err_code: 'NOT_FOUND', err_msg: 'Not found' }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const auth = request.headers.authorization ?? '';
    const authValid = auth === `Token ${options.apiKey}` || auth === `token ${options.apiKey}`;
    let resolveClosed!: () => void;
    const record: RecordedConnection = {
      query,
      authValid,
      refusedWith: undefined,
      audioBytes: 0,
      binaryMessages: 0,
      controlMessages: [],
      closeCode: undefined,
      closed: new Promise((resolve) => {
        resolveClosed = resolve;
      }),
    };
    connections.push(record);
    const refuse = (status: number, body: object) => {
      record.refusedWith = status;
      const text = JSON.stringify({ ...body, request_id: randomUUID() });
      socket.end(
        `HTTP/1.1 ${status} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
      resolveClosed();
    };
    if (url.pathname !== '/v1/listen')
      return refuse(404, { err_code: 'NOT_FOUND', err_msg: 'Not found' });
    if (!authValid) {
      return refuse(401, {
        err_code: 'INVALID_AUTH',
        err_msg: 'Invalid credentials.',
      });
    }
    const failure = failures.shift();
    if (failure?.kind === 'handshake_status') {
      return refuse(failure.status, { err_code: 'FAILURE', err_msg: `Injected ${failure.status}` });
    }
    const sampleRate = Number(query.sample_rate);
    if (
      query.encoding !== 'linear16' ||
      !Number.isInteger(sampleRate) ||
      sampleRate <= 0 ||
      query.channels !== '1' ||
      !query.model
    ) {
      return refuse(400, {
        err_code: 'Bad Request',
        err_msg:
          'The fake accepts encoding=linear16, an integer sample_rate, channels=1 and a model.',
      });
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      serve(ws, socket, record, sampleRate, failure, resolveClosed);
    });
  });

  function serve(
    ws: WebSocket,
    socket: Socket,
    record: RecordedConnection,
    sampleRate: number,
    failure: FakeDeepgramFailure | undefined,
    resolveClosed: () => void,
  ): void {
    const requestId = randomUUID();
    const bytesPerSecond = sampleRate * BYTES_PER_SAMPLE;
    const interimBytes = Math.round((bytesPerSecond * interimEveryMs) / 1000);
    let totalBytes = 0;
    let utteranceStartBytes = 0;
    let utteranceBytes = 0;
    let utteranceText: string | undefined;
    let revealed = 0;
    let idle: NodeJS.Timeout | undefined;
    const closeWith = (code: number, reason: string) => {
      record.closeCode = code;
      clearTimeout(idle);
      ws.close(code, reason);
    };
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => closeWith(1011, 'NET-0001'), idleTimeoutMs);
    };
    const results = (text: string, isFinal: boolean, fromFinalize: boolean) => {
      const start = utteranceStartBytes / bytesPerSecond;
      const duration = utteranceBytes / bytesPerSecond;
      const words = text === '' ? [] : text.split(/\s+/);
      ws.send(
        JSON.stringify({
          type: 'Results',
          channel_index: [0, 1],
          duration,
          start,
          is_final: isFinal,
          speech_final: isFinal && !fromFinalize,
          from_finalize: fromFinalize,
          channel: {
            alternatives: [
              {
                transcript: text,
                confidence: text === '' ? 0 : 0.97,
                words: words.map((word, i) => ({
                  word: word.toLowerCase().replace(/[^\p{L}']/gu, ''),
                  punctuated_word: word,
                  start: start + (duration * i) / words.length,
                  end: start + (duration * (i + 1)) / words.length,
                  confidence: 0.97,
                })),
              },
            ],
          },
          metadata: {
            request_id: requestId,
            model_info: { name: query(record, 'model'), version: 'fake', arch: 'fake' },
            model_uuid: randomUUID(),
          },
        }),
      );
    };
    const finalize = (fromFinalize: boolean) => {
      const text = utteranceText ?? '';
      if (utteranceBytes > 0 || fromFinalize)
        results(utteranceBytes > 0 ? text : '', true, fromFinalize);
      if (utteranceBytes > 0 && text !== '' && record.query.utterance_end_ms !== undefined) {
        ws.send(
          JSON.stringify({
            type: 'UtteranceEnd',
            channel: [0, 1],
            last_word_end: (utteranceStartBytes + utteranceBytes) / bytesPerSecond,
          }),
        );
      }
      utteranceStartBytes = totalBytes;
      utteranceBytes = 0;
      utteranceText = undefined;
      revealed = 0;
    };

    resetIdle();
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      resetIdle();
      if (isBinary) {
        if (data.byteLength % BYTES_PER_SAMPLE !== 0) return closeWith(1008, 'DATA-0000');
        record.binaryMessages += 1;
        record.audioBytes += data.byteLength;
        if (utteranceBytes === 0) utteranceText = script.shift() ?? '';
        const before = utteranceBytes;
        totalBytes += data.byteLength;
        utteranceBytes += data.byteLength;
        if (failure?.kind === 'drop_after_bytes' && totalBytes >= failure.bytes) {
          socket.destroy();
          return;
        }
        if (failure?.kind === 'close_after_bytes' && totalBytes >= failure.bytes) {
          return closeWith(failure.code, failure.reason);
        }
        const words = (utteranceText ?? '').split(/\s+/).filter((w) => w !== '');
        const crossed =
          Math.floor(utteranceBytes / interimBytes) > Math.floor(before / interimBytes);
        if (record.query.interim_results === 'true' && crossed && revealed < words.length - 1) {
          revealed += 1;
          results(words.slice(0, revealed).join(' '), false, false);
        }
        return;
      }
      let message: { type?: unknown };
      try {
        message = JSON.parse(data.toString('utf8')) as { type?: unknown };
      } catch {
        return closeWith(1008, 'DATA-0000: invalid JSON');
      }
      record.controlMessages.push(String(message.type));
      switch (message.type) {
        case 'KeepAlive':
          return;
        case 'Finalize':
          return finalize(true);
        case 'CloseStream':
          finalize(false);
          ws.send(
            JSON.stringify({
              type: 'Metadata',
              transaction_key: 'deprecated',
              request_id: requestId,
              sha256: 'fake',
              created: new Date().toISOString(),
              duration: totalBytes / bytesPerSecond,
              channels: 1,
            }),
          );
          return closeWith(1000, '');
        default:
          return closeWith(1008, 'DATA-0000: unknown message type');
      }
    });
    ws.on('close', (code) => {
      clearTimeout(idle);
      record.closeCode ??= code;
      resolveClosed();
    });
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    say: (text) => {
      script.push(text);
    },
    reset: () => {
      script.length = 0;
      failures.length = 0;
    },
    failNext: (failure) => {
      failures.push(failure);
    },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function query(record: RecordedConnection, name: string): string {
  return record.query[name] ?? '';
}

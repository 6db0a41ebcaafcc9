import { once } from 'node:events';
import WebSocket from 'ws';

export interface ServerEvent {
  event: string;
  [field: string]: unknown;
}

export interface StreamClient {
  socket: WebSocket;
  /** Every JSON event received so far, in order. */
  events: ServerEvent[];
  send(event: unknown): void;
  /** Resolves with the close code and reason once the server closed the socket. */
  closed: Promise<{ code: number; reason: string }>;
  /** Waits for the next event matching `predicate` (also one already received and unread). */
  waitFor(predicate: (event: ServerEvent) => boolean, timeoutMs?: number): Promise<ServerEvent>;
}

export interface UpgradeRefusal {
  status: number;
  body: Record<string, unknown>;
}

/** The stream URL of a server base URL (`http://127.0.0.1:PORT`). */
export function streamUrl(baseUrl: string, token?: string): string {
  const url = new URL('/v1/tts/stream', baseUrl.replace(/^http/, 'ws'));
  if (token !== undefined) url.searchParams.set('token', token);
  return url.toString();
}

/**
 * Opens `/v1/tts/stream` as a client would. Rejects with an {@link UpgradeRefusal} when the
 * handshake is refused.
 */
export async function openStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<StreamClient> {
  const socket = new WebSocket(url, { headers, perMessageDeflate: false });
  const events: ServerEvent[] = [];
  let cursor = 0;
  const listeners = new Set<() => void>();
  socket.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('the server sent a binary frame');
    events.push(JSON.parse(data.toString()) as ServerEvent);
    for (const listener of listeners) listener();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const listener of listeners) listener();
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(body) as Record<string, unknown>;
        } catch {
          parsed = { raw: body };
        }
        reject({ status: response.statusCode ?? 0, body: parsed } satisfies UpgradeRefusal);
      });
    });
    socket.once('error', reject);
  });
  return {
    socket,
    events,
    closed,
    send: (event) => socket.send(typeof event === 'string' ? event : JSON.stringify(event)),
    // Generous: on a busy machine the first audio of a long text can take many seconds.
    waitFor: (predicate, timeoutMs = 60_000) =>
      new Promise<ServerEvent>((resolve, reject) => {
        const check = () => {
          while (cursor < events.length) {
            const event = events[cursor++] as ServerEvent;
            if (predicate(event)) {
              cleanup();
              resolve(event);
              return;
            }
          }
          if (socket.readyState === WebSocket.CLOSED) {
            cleanup();
            reject(
              new Error(
                `socket closed before the awaited event; got ${JSON.stringify(events.map((e) => e.event))}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching event within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

/** Runs a whole request: start, the given text events (with flushes), stop; resolves at close. */
export async function streamRequest(
  client: StreamClient,
  start: Record<string, unknown>,
  texts: (string | { flush: true })[],
): Promise<{ code: number; reason: string; events: ServerEvent[] }> {
  client.send({ event: 'start', request: start });
  for (const text of texts) {
    client.send(typeof text === 'string' ? { event: 'text', text } : { event: 'flush' });
  }
  client.send({ event: 'stop' });
  const { code, reason } = await client.closed;
  return { code, reason, events: client.events };
}

/** The decoded audio bytes of every `audio` event, in order. */
export function audioOf(events: ServerEvent[]): Buffer {
  return Buffer.concat(
    events.filter((e) => e.event === 'audio').map((e) => Buffer.from(e.audio as string, 'base64')),
  );
}

export async function closeQuietly(client: StreamClient): Promise<void> {
  if (client.socket.readyState === WebSocket.OPEN) {
    client.socket.close();
    await once(client.socket, 'close');
  }
}

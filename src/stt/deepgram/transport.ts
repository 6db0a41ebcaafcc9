import type {
  DeepgramTransport,
  DeepgramTransportCloseEvent,
  DeepgramTransportMessage,
} from '@deepgram/sdk';
import WebSocket from 'ws';

/** The handshake was answered with an HTTP status instead of an upgrade. */
export class DeepgramHandshakeError extends Error {
  readonly status: number;

  constructor(status: number, body: string) {
    super(`Deepgram refused the connection: HTTP ${status} ${body.slice(0, 200)}`);
    this.name = 'DeepgramHandshakeError';
    this.status = status;
  }
}

/**
 * The SDK's transport seam filled with `ws`, the library the SDK itself uses. Ours only
 * to learn the HTTP status of a refused handshake (401, 429), which the SDK's own socket
 * reduces to a message string; everything else is plain WebSocket.
 */
export class WsDeepgramTransport implements DeepgramTransport {
  readonly #ws: WebSocket;
  #onOpen: Array<() => void> = [];
  #onMessage: Array<(message: DeepgramTransportMessage) => void> = [];
  #onError: Array<(error: Error) => void> = [];
  #onClose: Array<(event: DeepgramTransportCloseEvent) => void> = [];
  /** Set when the server answered the upgrade with an HTTP error. */
  handshakeError: DeepgramHandshakeError | undefined;

  constructor(url: string, headers: Record<string, string>) {
    this.#ws = new WebSocket(url, { headers, perMessageDeflate: false });
    this.#ws.binaryType = 'arraybuffer';
    this.#ws.on('open', () => {
      for (const listener of this.#onOpen) listener();
    });
    this.#ws.on('message', (data: ArrayBuffer | Buffer, isBinary: boolean) => {
      const message: DeepgramTransportMessage = isBinary
        ? (data as ArrayBuffer)
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      for (const listener of this.#onMessage) listener(message);
    });
    this.#ws.on('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const error = new DeepgramHandshakeError(
          response.statusCode ?? 0,
          Buffer.concat(chunks).toString('utf8'),
        );
        this.handshakeError = error;
        request.destroy();
        for (const listener of this.#onError) listener(error);
      });
    });
    this.#ws.on('error', (error) => {
      if (this.handshakeError !== undefined) return;
      for (const listener of this.#onError) listener(error);
    });
    this.#ws.on('close', (code, reason) => {
      for (const listener of this.#onClose) listener({ code, reason: reason.toString('utf8') });
    });
  }

  send(data: DeepgramTransportMessage): void {
    if (data instanceof Blob) throw new Error('Blob payloads are not used');
    this.#ws.send(data);
  }

  onOpen(listener: () => void): void {
    this.#onOpen.push(listener);
  }

  onMessage(listener: (message: DeepgramTransportMessage) => void): void {
    this.#onMessage.push(listener);
  }

  onError(listener: (error: Error) => void): void {
    this.#onError.push(listener);
  }

  onClose(listener: (event: DeepgramTransportCloseEvent) => void): void {
    this.#onClose.push(listener);
  }

  isOpen(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  close(code?: number, reason?: string): void {
    if (this.#ws.readyState === WebSocket.CONNECTING) {
      this.#ws.terminate();
      return;
    }
    // 1011 is what the SDK passes after an error; ws only lets clients send 1000 and 3000-4999.
    this.#ws.close(code === undefined || code === 1000 || code >= 3000 ? code : 1000, reason);
  }
}

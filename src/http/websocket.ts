import type { Environment } from '../app/config.ts';

/** What a WebSocket route sees of the upgrade request (copied before any await). */
export interface UpgradeRequest {
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  environment: Environment;
  requestId: string;
  remoteAddress: string;
}

/** An accepted connection as a route handles it. */
export interface SocketConnection {
  send(text: string): void;
  bufferedAmount(): number;
  /** Graceful close with a close frame. */
  close(code: number, reason: string): void;
}

/** Callbacks of one accepted connection. */
export interface SocketHandler {
  /** The socket is open; sending is allowed from now on. */
  opened(): void;
  /** One JSON text frame, parsed. */
  receive(value: unknown): void;
  /** One binary frame, copied (the handler may keep it); only on routes with `binaryFrames`. */
  receiveBinary?(data: Buffer): void;
  /** Buffered outgoing data was written. */
  drained(): void;
  /**
   * The connection closed, for any reason. Sending is no longer possible. `serverCloseCode`
   * is the code this side closed with (1008, 1009, ...), absent when the peer closed it.
   */
  lost(serverCloseCode?: number): void;
}

/**
 * A WebSocket route: `accept` authenticates the upgrade (throwing an `ApiError` answers
 * the handshake with that error's HTTP status and body, and no WebSocket) and returns the
 * factory of the connection's handler.
 */
export interface WebSocketRoute {
  path: string;
  /** Largest client frame, text or binary; larger ones close the connection with 1009. */
  maxFrameBytes: number;
  /** Binary frames are data for the handler (`receiveBinary`) instead of a 1008 close. */
  binaryFrames?: boolean;
  accept(request: UpgradeRequest): Promise<(connection: SocketConnection) => SocketHandler>;
}

import type {
  TemplatedApp,
  HttpRequest as UwsRequest,
  HttpResponse as UwsResponse,
  WebSocket as UwsWebSocket,
  us_socket_context_t,
} from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../app/config.ts';
import { errorBody, toApiError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import { requestContext } from '../../observability/request-context.ts';
import type { SocketConnection, SocketHandler, WebSocketRoute } from '../websocket.ts';
import { uws } from './native.ts';

interface SocketData {
  factory: (connection: SocketConnection) => SocketHandler;
  handler?: SocketHandler;
  closed: boolean;
  /** The upgrade request's id: the context of everything this connection runs. */
  requestId: string;
  /** When `open` ran (performance.now()), for the close log. */
  openedAt: number;
  /** The close code this side sent, if it ended the connection. */
  endedWith?: number;
}

/** uWS accepts frames up to this size so that larger ones can be answered with 1009. */
const UWS_MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Far above the session's own high-water mark: uWS never drops a frame we send. */
const UWS_MAX_BACKPRESSURE_BYTES = 16 * 1024 * 1024;

export interface MountWebSocketOptions {
  app: TemplatedApp;
  route: WebSocketRoute;
  listenerEnvironment: Environment;
  hostEnvironments: ReadonlyMap<string, Environment>;
  logger: Logger;
  /** Called when a connection opens and when it closes (in-flight tracking). */
  onOpen(): void;
  onClose(): void;
}

/**
 * Mounts a WebSocket route on a uWS app. The uWS rules live here: upgrade data copied
 * before the await, `onAborted` registered first, late writes corked (except the upgrade
 * itself, see {@link upgradeAfterAwait}), binary frames closed with 1008 (or handed over,
 * copied, on routes that take them), unparsable JSON with 1008, frames over the route's
 * limit with 1009. Every close is logged at debug with
 * its code, reason and which side ended it.
 */
export function mountWebSocket(options: MountWebSocketOptions): void {
  const { app, route, logger } = options;
  // What the connection runs carries its request context (for the failure policy's log).
  const inContext = (data: SocketData, fn: () => void) =>
    requestContext.run({ request_id: data.requestId, route: route.path }, fn);
  app.ws<SocketData>(route.path, {
    compression: uws.DISABLED,
    maxPayloadLength: UWS_MAX_PAYLOAD_BYTES,
    maxBackpressure: UWS_MAX_BACKPRESSURE_BYTES,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => upgrade(options, res, req, context),
    open: (ws) => {
      const data = ws.getUserData();
      data.openedAt = performance.now();
      options.onOpen();
      const connection: SocketConnection = {
        send: (text) => {
          if (data.closed) return;
          ws.cork(() => {
            // 2 would mean dropped; maxBackpressure is far above what a session buffers.
            if (ws.send(text, false, false) === 2) {
              logger.error('a WebSocket frame was dropped by backpressure');
              end(ws, 1011, 'backpressure');
            }
          });
        },
        bufferedAmount: () => (data.closed ? 0 : ws.getBufferedAmount()),
        close: (code, reason) => {
          if (data.closed) return;
          ws.cork(() => end(ws, code, reason));
        },
      };
      inContext(data, () => {
        data.handler = data.factory(connection);
        data.handler.opened();
      });
    },
    message: (ws, message, isBinary) => {
      const data = ws.getUserData();
      if (isBinary && !route.binaryFrames) {
        end(ws, 1008, 'binary frames are not accepted');
        return;
      }
      if (message.byteLength > route.maxFrameBytes) {
        end(ws, 1009, 'frame too large');
        return;
      }
      if (isBinary) {
        // uWS reuses the message's memory after this callback: the handler gets a copy.
        const copy = Buffer.from(new Uint8Array(message));
        inContext(data, () => data.handler?.receiveBinary?.(copy));
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(message).toString('utf8'));
      } catch {
        end(ws, 1008, 'invalid JSON');
        return;
      }
      inContext(data, () => data.handler?.receive(value));
    },
    drain: (ws) => ws.getUserData().handler?.drained(),
    close: (ws, code, message) => {
      const data = ws.getUserData();
      logger.debug(
        {
          route: route.path,
          code,
          reason: Buffer.from(message).toString('utf8'),
          ended_by: data.endedWith === undefined ? 'peer' : 'server',
          open_ms: Math.round(performance.now() - data.openedAt),
        },
        'WebSocket closed',
      );
      data.closed = true;
      options.onClose();
      inContext(data, () => data.handler?.lost(data.endedWith));
    },
  });
}

/** Ends the connection with a close frame, remembering that this side ended it. */
function end(ws: UwsWebSocket<SocketData>, code: number, reason: string): void {
  ws.getUserData().endedWith = code;
  ws.end(code, reason);
}

/**
 * Completes an upgrade after the route's `accept` settled, deliberately without
 * `res.cork`. uWS asks for every late write to be corked, but both builds we have used
 * (uWS 20.30, and the 3.0.6 binaries of uWebSockets.js commit b8704be) can lose the
 * socket when the upgrade runs inside a cork that `res.cork` itself opened, which is the
 * case whenever `accept` settles outside uWS's callbacks (after a PostgreSQL or Redis
 * round trip; with SQLite it settles in the microtasks of uWS's own callback, where the
 * socket is already corked). The upgraded WebSocket usually keeps the HTTP socket's
 * address, so `cork()` misses the upgrade and reads the freed HTTP response state from
 * heap bytes the open handler may have reused; when they carry uWS's connection-close
 * bit it shuts the new WebSocket down right after `open`: the client sees 1006 and no
 * event. uWebSockets fixed this upstream (PR #1929, issue #1928); no build that loads
 * here has the fix yet. The cost: the 101 response leaves in a few small writes, and the
 * binding prints a "writes must be made from within a corked callback" warning on stderr
 * for each upgrade completed outside its callbacks.
 */
function upgradeAfterAwait(
  res: UwsResponse,
  data: SocketData,
  key: string,
  protocol: string,
  extensions: string,
  context: us_socket_context_t,
): void {
  res.upgrade<SocketData>(data, key, protocol, extensions, context);
}

function upgrade(
  options: MountWebSocketOptions,
  res: UwsResponse,
  req: UwsRequest,
  context: us_socket_context_t,
): void {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const headers: Record<string, string> = {};
  req.forEach((key, value) => {
    headers[key] = value;
  });
  const requestId = uuidv7();
  const hostname = (headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  const environment = options.hostEnvironments.get(hostname) ?? options.listenerEnvironment;
  const key = headers['sec-websocket-key'] ?? '';
  // Echo the first offered subprotocol, if any: browsers refuse a reply without one.
  const protocol = (headers['sec-websocket-protocol'] ?? '').split(',')[0]?.trim() ?? '';
  const extensions = headers['sec-websocket-extensions'] ?? '';
  const request = {
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    environment,
    requestId,
    remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
  options.route.accept(request).then(
    (factory) => {
      if (aborted) return;
      const data: SocketData = { factory, closed: false, openedAt: 0, requestId };
      upgradeAfterAwait(res, data, key, protocol, extensions, context);
    },
    (error: unknown) => {
      if (aborted) return;
      const apiError = toApiError(error);
      if (apiError.code === 'internal_error') {
        options.logger.error({ err: error, request_id: requestId }, 'WebSocket upgrade failed');
      }
      options.logger.info(
        { request_id: requestId, route: options.route.path, status: apiError.status },
        'upgrade refused',
      );
      res.cork(() => {
        res.writeStatus(`${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`.trimEnd());
        res.writeHeader('x-request-id', requestId);
        res.writeHeader('content-type', 'application/json');
        if (apiError.retryAfterSeconds !== undefined) {
          res.writeHeader(
            'retry-after',
            String(Math.max(1, Math.ceil(apiError.retryAfterSeconds))),
          );
        }
        res.end(JSON.stringify(errorBody(apiError, requestId)), true);
      });
    },
  );
}

import type {
  TemplatedApp,
  HttpRequest as UwsRequest,
  HttpResponse as UwsResponse,
  us_socket_context_t,
} from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../config.ts';
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
 * before the await, `onAborted` registered first, late writes corked, binary frames closed
 * with 1008, unparsable JSON with 1008, frames over the route's limit with 1009.
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
      options.onOpen();
      const connection: SocketConnection = {
        send: (text) => {
          if (data.closed) return;
          ws.cork(() => {
            // 2 would mean dropped; maxBackpressure is far above what a session buffers.
            if (ws.send(text, false, false) === 2) {
              logger.error('a WebSocket frame was dropped by backpressure');
              ws.end(1011, 'backpressure');
            }
          });
        },
        bufferedAmount: () => (data.closed ? 0 : ws.getBufferedAmount()),
        close: (code, reason) => {
          if (data.closed) return;
          ws.cork(() => ws.end(code, reason));
        },
      };
      inContext(data, () => {
        data.handler = data.factory(connection);
        data.handler.opened();
      });
    },
    message: (ws, message, isBinary) => {
      const data = ws.getUserData();
      if (isBinary) {
        ws.end(1008, 'binary frames are not accepted');
        return;
      }
      if (message.byteLength > route.maxFrameBytes) {
        ws.end(1009, 'frame too large');
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(message).toString('utf8'));
      } catch {
        ws.end(1008, 'invalid JSON');
        return;
      }
      inContext(data, () => data.handler?.receive(value));
    },
    drain: (ws) => ws.getUserData().handler?.drained(),
    close: (ws) => {
      const data = ws.getUserData();
      data.closed = true;
      options.onClose();
      inContext(data, () => data.handler?.lost());
    },
  });
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
      res.cork(() => {
        res.upgrade<SocketData>(
          { factory, closed: false, requestId },
          key,
          protocol,
          extensions,
          context,
        );
      });
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

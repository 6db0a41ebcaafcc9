/**
 * Application sessions (protocol v2) for customer backends: start a session, join its
 * data-only connection, answer the worker's callbacks and send commands.
 *
 * @example
 * ```ts
 * import { ApplicationConnection, startApplicationSession } from '@awp/backend-sdk';
 *
 * const { control, session } = await startApplicationSession(http, start);
 * const connection = await ApplicationConnection.join(control, handlers);
 * ```
 */

export { readRequest, resultValue } from './callbacks.ts';
export type { CommandOptions } from './commands.ts';
export { ApplicationConnection } from './connection.ts';
export type { DecodedEnvelope } from './envelope.ts';
export { clipMessage, decodeEnvelope, encodeEnvelope, isUuid, toJsonValue } from './envelope.ts';
export {
  ApplicationError,
  type ApplicationErrorInit,
  type ApplicationLocalErrorCode,
  CallCancelledError,
} from './errors.ts';
export { currentAgent, isApplicationAgent, waitForApplicationAgent } from './handshake.ts';
export { defaultLedger, type LedgerEntry, RequestLedger, type ResultSink } from './ledger.ts';
export { type ApplicationLogger, consoleLogger } from './logger.ts';
export * from './protocol.ts';
export {
  type ApplicationControl,
  type ApplicationDefinition,
  type ApplicationHttpOptions,
  type ApplicationSessionPart,
  type ApplicationToolSpec,
  type StartApplicationSessionInput,
  type StartedApplicationSession,
  startApplicationSession,
} from './start.ts';
export type { ApplicationHandlers, CallbackContext, JoinOptions, ToolContext } from './types.ts';

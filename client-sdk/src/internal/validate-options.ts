import { httpOriginOf, resolveApiOrigin } from '../api-origin.ts';
import { ConversationError } from '../errors.ts';
import type {
  ConversationClientOptions,
  SessionContext,
  SessionOverrides,
  SessionTokenResult,
} from '../options.ts';
import type { SessionStartResponse } from '../session.ts';
import { checkOverrides } from './session-overrides.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_AGENT_JOIN_TIMEOUT_MS = 20_000;
/**
 * The api hands a lost job's session over after a 3 s lapse and the new job joins about
 * 5 s after the crash; the api gives up on the session at 15 s (its heartbeat timeout).
 */
const DEFAULT_AGENT_REJOIN_TIMEOUT_MS = 15_000;

/** How a session is obtained, after validation. */
export type SessionSource =
  | {
      kind: 'token';
      /** Origin of the api's session start: the option, else the default. */
      apiOrigin: string;
      sessionToken: () => SessionTokenResult | Promise<SessionTokenResult>;
      /** Only the nonblank values; undefined when none. */
      sessionContext: SessionContext | undefined;
      /** Checked: a card or legacy fields, never both; undefined when none. */
      overrides: SessionOverrides | undefined;
    }
  | {
      kind: 'backend';
      startSession: (request: { agentId: string }) => Promise<SessionStartResponse>;
    };

export interface ResolvedOptions {
  agentId: string;
  inputAudioEnabled: boolean;
  audioPlayback: boolean;
  agentJoinTimeoutMs: number;
  agentRejoinTimeoutMs: number;
  source: SessionSource;
}

function invalid(message: string): ConversationError {
  return new ConversationError('invalid_options', message);
}

/** Applies the constructor rules of the spec's client library table. Throws `invalid_options`. */
export function resolveOptions(options: ConversationClientOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalid('ConversationClient needs an options object.');
  }
  const { agentId } = options;
  if (typeof agentId !== 'string' || !UUID.test(agentId)) {
    throw invalid(
      `agentId must be a UUID (got ${JSON.stringify(agentId)}); resolve a slug to the Agent's id on your backend.`,
    );
  }
  const hasToken = options.sessionToken !== undefined;
  const hasStart = options.startSession !== undefined;
  if (hasToken === hasStart) {
    throw invalid('Pass exactly one of sessionToken and startSession.');
  }
  if (hasToken && typeof options.sessionToken !== 'function') {
    throw invalid('sessionToken must be a function returning a fresh token (sync or async).');
  }
  if (hasStart && typeof options.startSession !== 'function') {
    throw invalid('startSession must be a function returning the session part of your backend.');
  }
  if (!hasToken && options.sessionContext !== undefined) {
    throw invalid('sessionContext is only accepted with sessionToken.');
  }
  if (!hasToken && options.overrides !== undefined) {
    throw invalid(
      "overrides is only accepted with sessionToken (with startSession, your backend's start decides).",
    );
  }
  // Only the library's own start uses the api: a backend start never needs a default.
  if (!hasToken && options.apiOrigin !== undefined && !httpOriginOf(options.apiOrigin)) {
    throw invalid(
      `apiOrigin must be an absolute http(s) URL (got ${JSON.stringify(options.apiOrigin)}).`,
    );
  }
  const agentJoinTimeoutMs = options.agentJoinTimeoutMs ?? DEFAULT_AGENT_JOIN_TIMEOUT_MS;
  if (!Number.isFinite(agentJoinTimeoutMs) || agentJoinTimeoutMs <= 0) {
    throw invalid('agentJoinTimeoutMs must be a positive number of milliseconds.');
  }
  const agentRejoinTimeoutMs = options.agentRejoinTimeoutMs ?? DEFAULT_AGENT_REJOIN_TIMEOUT_MS;
  if (!Number.isFinite(agentRejoinTimeoutMs) || agentRejoinTimeoutMs <= 0) {
    throw invalid('agentRejoinTimeoutMs must be a positive number of milliseconds.');
  }
  const source: SessionSource = options.sessionToken
    ? {
        kind: 'token',
        apiOrigin: apiOrigin(options.apiOrigin),
        sessionToken: options.sessionToken,
        sessionContext: nonBlankContext(options.sessionContext),
        overrides: checkOverrides(options.overrides),
      }
    : { kind: 'backend', startSession: options.startSession! };
  return {
    agentId: agentId.toLowerCase(),
    inputAudioEnabled: options.inputAudioEnabled ?? true,
    audioPlayback: options.audioPlayback ?? true,
    agentJoinTimeoutMs,
    agentRejoinTimeoutMs,
    source,
  };
}

function apiOrigin(value: string | undefined): string {
  const resolved = resolveApiOrigin(value);
  if ('problem' in resolved) throw invalid(resolved.problem);
  return resolved.origin;
}

function nonBlankContext(context: SessionContext | undefined): SessionContext | undefined {
  if (context === undefined) return undefined;
  if (typeof context !== 'object' || context === null) {
    throw invalid('sessionContext must be an object {userName?, timeZone?}.');
  }
  const result: SessionContext = {};
  for (const key of ['userName', 'timeZone'] as const) {
    const value = context[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalid(`sessionContext.${key} must be a string.`);
    if (value.trim() !== '') result[key] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

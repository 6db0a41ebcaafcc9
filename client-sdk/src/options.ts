import type { InputMode, SessionStartResponse } from './session.ts';

/** What a `sessionToken` callback may return: the token, or the api's token object. */
export type SessionTokenResult = string | { token: string; expires_at?: string };

/** What the end user tells the Agent about themselves (sent with `sessionToken` only). */
export interface SessionContext {
  /** Shown to the Agent and used as the participant name. Blank values are not sent. */
  userName?: string;
  /** IANA time zone, e.g. `Europe/Paris`. Blank values are not sent. */
  timeZone?: string;
}

/** Options shared by both ways of starting a session. */
interface CommonOptions {
  /** Id of the Agent (a UUID; slugs are resolved to ids by your backend). */
  agentId: string;
  /**
   * Origin of the api that starts sessions, e.g. `https://api.example.com`. Defaults to
   * {@link DEFAULT_API_ORIGIN} (the production listener of a local install).
   */
  apiOrigin?: string;
  /**
   * Default true. False: the microphone is never requested, and push-to-talk and microphone
   * controls fail with `input_audio_disabled` (text-only conversations).
   */
  inputAudioEnabled?: boolean;
  /**
   * Default true: the library plays the Agent's voice. False: the app plays the track from the
   * `remoteAudioTrack` event itself, and `muted` has no effect.
   */
  audioPlayback?: boolean;
  /** How long `connect()` waits for the Agent to join the room. Default 20,000 ms. */
  agentJoinTimeoutMs?: number;
}

/** Sessions started by the library with a short-lived Agent session token. */
export interface TokenSessionOptions extends CommonOptions {
  /**
   * Returns a fresh Agent session token, minted by your backend for this Agent
   * (`POST /v1/agents/{agentId}/session-tokens`). Called on every `connect()`: a token starts
   * one conversation, so never cache it.
   */
  sessionToken: () => SessionTokenResult | Promise<SessionTokenResult>;
  startSession?: never;
  /** Sent with the session start; blank values are omitted. */
  sessionContext?: SessionContext;
}

/** Sessions (e.g. application sessions) started by your own authenticated backend. */
export interface BackendSessionOptions extends CommonOptions {
  /**
   * Starts a session through your backend and returns the session part of its answer (the
   * shape of the api's session answer). Called on every `connect()`. For an application
   * session (`POST /v1/agents/{agentId}/application-sessions`) return its `session` part
   * unchanged; `control` stays on your backend (a client given it refuses to connect).
   *
   * @example
   * ```ts
   * startSession: async ({ agentId }) => {
   *   const r = await fetch('/my/voice-session', { method: 'POST', body: JSON.stringify({ agentId }) });
   *   return r.json(); // your backend answers `answer.session` only
   * },
   * ```
   */
  startSession: (request: { agentId: string }) => Promise<SessionStartResponse>;
  sessionToken?: never;
  sessionContext?: never;
}

/** Options of {@link ConversationClient}: exactly one of `sessionToken` and `startSession`. */
export type ConversationClientOptions = TokenSessionOptions | BackendSessionOptions;

/** Options of `connect()`. */
export interface ConnectOptions {
  /** How the user's turns end: `push-to-talk` (default) or `automatic` (voice activity). */
  inputMode?: InputMode;
}

/** Options of `sendText()`. */
export interface SendTextOptions {
  /** False makes this one answer text-only (no audio). Default true. */
  audioResponse?: boolean;
}

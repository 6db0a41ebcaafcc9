import type { defaultApiOrigin } from './api-origin.ts';
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

/**
 * The `data` of a character card V3: fields left out are empty. See the spec's "Character
 * card".
 */
export interface CharacterCardData {
  name?: string;
  description?: string;
  personality?: string;
  scenario?: string;
  first_mes?: string;
  mes_example?: string;
  system_prompt?: string;
  post_history_instructions?: string;
  creator_notes?: string;
  creator?: string;
  character_version?: string;
  alternate_greetings?: string[];
  tags?: string[];
  group_only_greetings?: string[];
  extensions?: Record<string, unknown>;
}

/** A character card V3: the complete character configuration. */
export interface CharacterCard {
  spec: 'chara_card_v3';
  spec_version: '3.0';
  data: CharacterCardData;
}

/**
 * What this session changes of the Agent's published character (the Agent itself is not
 * edited): a complete `characterCard`, or the legacy `persona` / `systemPrompt` (each
 * omitted one inherits the published card). The two forms are never combined.
 */
export type SessionOverrides =
  | { characterCard: CharacterCard; persona?: never; systemPrompt?: never }
  | {
      /** Replaces the card's `data.description` for this session. */
      persona?: string;
      /** Replaces the card's `data.system_prompt` for this session. */
      systemPrompt?: string;
      characterCard?: never;
    };

/** Options shared by both ways of starting a session. */
interface CommonOptions {
  /** Id of the Agent (a UUID; slugs are resolved to ids by your backend). */
  agentId: string;
  /**
   * Origin of the api that starts sessions, e.g. `https://api.example.com`. Defaults to the
   * deployment's production origin: the page's `<meta name="awp-api-origin">`, else the
   * build's `__AWP_API_ORIGIN__` define, else the page's own origin (see
   * {@link defaultApiOrigin}). Not used with `startSession`.
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
  /**
   * How long the conversation waits, `reconnecting`, for the Agent to join again after it
   * left without ending the session (its job was lost and the api hands the session to a
   * new one). Default 15,000 ms; then `agent_unavailable` and `disconnected`.
   */
  agentRejoinTimeoutMs?: number;
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
  /**
   * Sent with the session start: this session's character, a complete `characterCard` or
   * the legacy `persona` / `systemPrompt`. Combining the two forms throws `invalid_options`.
   */
  overrides?: SessionOverrides;
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
  /** Your backend's start decides the session's character. */
  overrides?: never;
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

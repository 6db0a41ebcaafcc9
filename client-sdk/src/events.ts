import type { ConversationError } from './errors.ts';
import type { AgentState, ConnectionState, ConversationSession } from './session.ts';

/** Whose words a transcript line holds. */
export type TranscriptRole = 'user' | 'agent';

/**
 * Live caption state of one speech segment (LiveKit's `lk.transcription` streams). Several
 * events share a `segmentId`; each carries the segment's whole text so far, so an app keeps
 * the last one per `segmentId`. Captions are ephemeral: the durable line is `transcript`.
 */
export interface TranscriptProgressEvent {
  /** Runtime id of the segment (`lk.segment_id`); not a durable message id. */
  segmentId: string;
  role: TranscriptRole;
  /** The segment's text so far. */
  text: string;
  /**
   * True once the sender marked the segment final (`lk.transcription_final`) and its stream
   * ended. The Agent's caption steps one word at a time as each word's audio reaches the
   * listener; its final text is the whole reply, or after an interruption exactly the words
   * heard.
   */
  final: boolean;
}

/** One persisted turn of the conversation (`awp.transcript`). */
export interface TranscriptEvent {
  /** Durable message id. */
  id: string;
  role: TranscriptRole;
  /** An interrupted Agent turn carries only what was spoken. */
  text: string;
  /** Currently always true. */
  final: boolean;
}

/** The Agent stays quiet on purpose this turn (`awp.declined`). */
export interface DeclinedEvent {
  reason: string;
}

/** The Agent started or stopped speaking (from `lk.agent.state`). */
export interface AgentSpeakingEvent {
  speaking: boolean;
  /** The Agent's full state, for apps that also show listening and thinking. */
  state: AgentState;
}

/** The Agent's audio track, for apps that play it themselves (`audioPlayback: false`). */
export interface RemoteAudioTrackEvent {
  track: MediaStreamTrack;
}

/**
 * Payload type of every event, by name. Subscribe with `client.on(name, listener)`.
 *
 * - `connectionState`: `disconnected`, `connecting`, `connected` or `reconnecting`.
 * - `session`: the started session, once per `connect()`, before it resolves.
 * - `transcriptProgress`: live captions; `transcript`: persisted turns.
 * - `declined`: deliberate silence; `agentSpeaking`: speech starts and stops.
 * - `remoteAudioTrack`: the Agent's audio track each time one is subscribed.
 * - `error`: every failure, including failed controls.
 */
export interface ConversationEventMap {
  connectionState: ConnectionState;
  session: ConversationSession;
  transcriptProgress: TranscriptProgressEvent;
  transcript: TranscriptEvent;
  declined: DeclinedEvent;
  agentSpeaking: AgentSpeakingEvent;
  remoteAudioTrack: RemoteAudioTrackEvent;
  error: ConversationError;
}

/** One of the eight event names. */
export type ConversationEventName = keyof ConversationEventMap;

/** A listener of event `K`. */
export type ConversationListener<K extends ConversationEventName> = (
  payload: ConversationEventMap[K],
) => void;

import { voice } from '@livekit/agents';
import type { LatencyStats, TurnLatencySummary } from '../../src/worker-boundary/index.ts';

/** One spoken turn's end, as LiveKit's end-of-utterance metrics report it. */
export interface EndOfTurn {
  /** The reply the turn started. */
  speechId: string;
  /** When the VAD last heard the user (epoch ms); 0 when it did not. */
  lastSpeakingTimeMs: number;
  transcriptionDelayMs: number;
}

interface Stages {
  llmFirstTokenMs?: number;
  ttsFirstAudioMs?: number;
}

interface Turn extends Stages {
  endOfSpeechToFirstAudioMs: number;
  transcriptionDelayMs: number;
}

/** Turns kept for the percentiles: the newest, an hour of brisk conversation. */
const MAX_TURNS = 1000;
/** Measured replies whose stages may still report. */
const RECENT_REPLIES = 4;

/**
 * Per-turn voice latency of one session: from the end of the user's speech (in
 * push-to-talk, the key's release when that is later) to the agent's first audio frame,
 * with the stages LiveKit measures for the same reply (transcript, the model's first
 * token, synthesis's first audio).
 *
 * A turn is the reply an end of utterance started (`endOfTurn`). It is measured when the
 * agent's audio starts playing while that reply is pending; a reply that ends without
 * audio (it was interrupted, or answered nothing) is forgotten, and so is one the user
 * speaks over before it starts, so the greeting, typed turns and replies started by other
 * means are never counted.
 */
export class TurnLatencies {
  readonly #turns: Turn[] = [];
  /** Measured turns by their reply, the newest few. */
  readonly #recent = new Map<string, Turn>();
  #pending: (EndOfTurn & Stages) | undefined;
  #releasedAt: number | undefined;

  /**
   * @param onTurn the summary after each measured turn (with that turn's end of speech to
   * first audio) and after a late stage measure (without)
   */
  constructor(
    private readonly onTurn: (summary: TurnLatencySummary, firstAudioMs?: number) => void,
  ) {}

  endOfTurn(turn: EndOfTurn): void {
    // In push-to-talk the turn ends at the key's release, which can come well after the
    // last word: the user waits from there.
    const endedAt = Math.max(turn.lastSpeakingTimeMs, this.#releasedAt ?? 0);
    this.#releasedAt = undefined;
    this.#pending = endedAt > 0 ? { ...turn, lastSpeakingTimeMs: endedAt } : undefined;
  }

  /** The push-to-talk key was released (the turn committed) at `atMs` (epoch ms). */
  keyReleased(atMs: number): void {
    this.#releasedAt = atMs;
  }

  llmFirstToken(speechId: string | undefined, ms: number): void {
    this.#stage(speechId, (turn) => {
      turn.llmFirstTokenMs ??= Math.round(ms);
    });
  }

  ttsFirstAudio(speechId: string | undefined, ms: number): void {
    this.#stage(speechId, (turn) => {
      turn.ttsFirstAudioMs ??= Math.round(ms);
    });
  }

  /**
   * A stage's measure of reply `speechId`: LiveKit reports the model's and synthesis's
   * when their streams end, usually after the reply's first audio, so a turn already
   * measured takes them too (and the summary is reported again).
   */
  #stage(speechId: string | undefined, set: (turn: Stages) => void): void {
    if (speechId === undefined) return;
    if (this.#pending?.speechId === speechId) {
      set(this.#pending);
      return;
    }
    const turn = this.#recent.get(speechId);
    if (turn === undefined) return;
    const before = [turn.llmFirstTokenMs, turn.ttsFirstAudioMs];
    set(turn);
    if (turn.llmFirstTokenMs !== before[0] || turn.ttsFirstAudioMs !== before[1]) this.#report();
  }

  /** The reply `speechId` is over, whether or not it spoke. */
  speechDone(speechId: string): void {
    if (this.#pending?.speechId === speechId) this.#pending = undefined;
  }

  /** The user started speaking: a reply not yet audible no longer answers the last turn. */
  userStartedSpeaking(): void {
    this.#pending = undefined;
  }

  /** The agent's first audio frame of a reply left at `atMs` (epoch ms). */
  agentStartedSpeaking(atMs: number): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    const turn: Turn = {
      endOfSpeechToFirstAudioMs: Math.max(0, Math.round(atMs - pending.lastSpeakingTimeMs)),
      transcriptionDelayMs: Math.round(pending.transcriptionDelayMs),
    };
    if (pending.llmFirstTokenMs !== undefined) turn.llmFirstTokenMs = pending.llmFirstTokenMs;
    if (pending.ttsFirstAudioMs !== undefined) turn.ttsFirstAudioMs = pending.ttsFirstAudioMs;
    this.#turns.push(turn);
    if (this.#turns.length > MAX_TURNS) this.#turns.shift();
    this.#recent.set(pending.speechId, turn);
    for (const id of this.#recent.keys()) {
      if (this.#recent.size <= RECENT_REPLIES) break;
      this.#recent.delete(id);
    }
    this.#report(turn.endOfSpeechToFirstAudioMs);
  }

  #report(firstAudioMs?: number): void {
    const summary = this.summary();
    if (summary) this.onTurn(summary, firstAudioMs);
  }

  summary(): TurnLatencySummary | null {
    const turns = this.#turns;
    const endOfSpeechToFirstAudioMs = stats(turns.map((t) => t.endOfSpeechToFirstAudioMs));
    if (endOfSpeechToFirstAudioMs === null) return null;
    const measure = (pick: (turn: Turn) => number | undefined) =>
      stats(turns.map(pick).filter((value): value is number => value !== undefined));
    return {
      turns: turns.length,
      endOfSpeechToFirstAudioMs,
      transcriptionDelayMs: measure((t) => t.transcriptionDelayMs),
      llmFirstTokenMs: measure((t) => t.llmFirstTokenMs),
      ttsFirstAudioMs: measure((t) => t.ttsFirstAudioMs),
    };
  }
}

/**
 * Feeds `latencies` from a started LiveKit `AgentSession`'s events; the agent's first audio
 * of a reply is its audio output's playback start (the first frame sent to the room).
 */
export function watchTurnLatencies(
  voiceSession: voice.AgentSession,
  latencies: TurnLatencies,
): void {
  const E = voice.AgentSessionEventTypes;
  voiceSession.on(E.SpeechCreated, ({ speechHandle }) => {
    speechHandle.addDoneCallback((handle) => latencies.speechDone(handle.id));
  });
  voiceSession.on(E.MetricsCollected, ({ metrics }) => {
    if (metrics.type === 'eou_metrics' && metrics.speechId !== undefined) {
      latencies.endOfTurn({
        speechId: metrics.speechId,
        lastSpeakingTimeMs: metrics.lastSpeakingTimeMs,
        transcriptionDelayMs: metrics.transcriptionDelayMs,
      });
    } else if (metrics.type === 'llm_metrics') {
      latencies.llmFirstToken(metrics.speechId, metrics.ttftMs);
    } else if (metrics.type === 'tts_metrics') {
      latencies.ttsFirstAudio(metrics.speechId, metrics.ttfbMs);
    }
  });
  voiceSession.on(E.UserStateChanged, (event) => {
    if (event.newState === 'speaking') latencies.userStartedSpeaking();
  });
  voiceSession.output.audio?.on(
    voice.AudioOutput.EVENT_PLAYBACK_STARTED,
    (event: voice.PlaybackStartedEvent) => latencies.agentStartedSpeaking(event.createdAt),
  );
}

/** Nearest-rank percentiles; null for no values. */
function stats(values: number[]): LatencyStats | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { p50: rank(0.5), p95: rank(0.95), max: sorted.at(-1) ?? 0 };
}

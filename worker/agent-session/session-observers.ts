import { voice } from '@livekit/agents';
import type { Logger } from '../../src/worker-boundary/index.ts';
import type { ApplicationRuntime } from '../application/runtime.ts';
import type { AgentCaptions } from './captions.ts';
import type { SpeechPipeline } from './session-pipeline.ts';
import { SpokenContext } from './spoken-context.ts';
import type { TranscriptPublisher } from './transcripts.ts';

/**
 * Per-turn latencies (end of utterance, STT, LLM first token, TTS first audio), for
 * operators: one log line per measure.
 */
export function logTurnMetrics(voiceSession: voice.AgentSession, log: Logger): void {
  voiceSession.on(voice.AgentSessionEventTypes.MetricsCollected, ({ metrics }) => {
    if (metrics.type === 'eou_metrics') {
      log.info(
        {
          end_of_utterance_delay_ms: Math.round(metrics.endOfUtteranceDelayMs),
          transcription_delay_ms: Math.round(metrics.transcriptionDelayMs),
        },
        'turn metrics: end of utterance',
      );
    } else if (metrics.type === 'llm_metrics') {
      log.info({ ttft_ms: Math.round(metrics.ttftMs) }, 'turn metrics: llm');
    } else if (metrics.type === 'tts_metrics') {
      log.info({ ttfb_ms: Math.round(metrics.ttfbMs) }, 'turn metrics: tts');
    }
  });
}

/** Finalized turns go to the transcript; the framework's errors to the room. */
export function publishTranscripts(
  voiceSession: voice.AgentSession,
  transcripts: TranscriptPublisher,
): void {
  voiceSession.on(voice.AgentSessionEventTypes.ConversationItemAdded, (event) => {
    transcripts.itemAdded(event.item);
  });
  voiceSession.on(voice.AgentSessionEventTypes.Error, (event) => {
    const error = event.error as { message?: string; recoverable?: boolean } | undefined;
    transcripts.error({
      code: 'agent_unavailable',
      detail: error?.message ?? 'the agent failed',
      retryable: true,
    });
  });
}

/**
 * What an interrupted reply actually said, from the playback position LiveKit reports; and
 * barge-in latency, measured here: from Silero's start of speech over the agent's speech
 * to LiveKit's audio output reporting the agent's audio cleared (logged as `barge-in`).
 * Called before the session starts (it follows the session's speech from the first);
 * `outputStarted` once it has, when its audio output (with the captions' clock) exists: the
 * captions end each playout with the text heard.
 */
export function followPlayout(
  pipeline: SpeechPipeline,
  transcripts: TranscriptPublisher,
  app: ApplicationRuntime | undefined,
  log: Logger,
): { outputStarted(captions: AgentCaptions): void } {
  const { voiceSession, playout } = pipeline;
  const spokenContext = new SpokenContext(voiceSession);
  let speechOverAgentAt: number | undefined;
  voiceSession.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState === 'speaking') {
      speechOverAgentAt = voiceSession.agentState === 'speaking' ? performance.now() : undefined;
    }
  });
  let captions: AgentCaptions | undefined;
  const playbackFinished = (event: voice.PlaybackFinishedEvent) => {
    const spoken = playout.finish(event.playbackPosition, event.interrupted);
    captions?.finished(spoken);
    app?.playoutFinished(spoken, event.interrupted);
    if (!event.interrupted) return;
    transcripts.interruptedPlayout(spoken);
    spokenContext
      .interrupted(spoken)
      .catch((error) => log.warn({ err: error }, 'interrupted reply not kept in the context'));
    if (speechOverAgentAt !== undefined && performance.now() - speechOverAgentAt < 2000) {
      log.info(
        { detected_to_cleared_ms: Math.round(performance.now() - speechOverAgentAt) },
        'barge-in',
      );
    }
    speechOverAgentAt = undefined;
  };
  return {
    outputStarted: (agentCaptions) => {
      captions = agentCaptions;
      voiceSession.output.audio?.on(voice.AudioOutput.EVENT_PLAYBACK_FINISHED, playbackFinished);
    },
  };
}

import { voice } from '@livekit/agents';
import { userSpeechLanguage } from '../../src/stt/language.ts';
import {
  type AgentSessionRecord,
  agentSessionLedgerId,
  type Logger,
} from '../../src/worker-boundary/index.ts';
import { AwpLlm } from '../models/awp-llm.ts';
import { AwpStt } from '../models/awp-stt.ts';
import { AwpTts, TTS_SAMPLE_RATE_HZ } from '../models/awp-tts.ts';
import { vadWatchingPauses } from '../models/vad-pauses.ts';
import { type AnsweredCharges, chargeAnsweredCalls } from './answered-charges.ts';
import { type InputMode, startingInputMode } from './controls.ts';
import { PlayoutLedger } from './playout.ts';
import type { SessionDependencies } from './session-deps.ts';
import type { PreparedConversation } from './session-prompt.ts';
import type { TranscriptPublisher } from './transcripts.ts';
import type { AgentSessionMeter } from './usage.ts';

/** The session's speech pipeline: VAD turns, our STT, LLM and TTS in one `AgentSession`. */
export interface SpeechPipeline {
  voiceSession: voice.AgentSession;
  speech: AwpTts;
  recognizer: AwpStt;
  playout: PlayoutLedger;
  /** The user's speech language (undefined: detected). */
  language: string | undefined;
  /** Push-to-talk's controls tell the VAD which input mode is on (controls.ts). */
  setInputMode(mode: () => InputMode): void;
}

/** The published Agent's models; a snapshot without a language model or voice cannot run. */
export function runnableModels(record: AgentSessionRecord): {
  llmProvider: NonNullable<AgentSessionRecord['snapshot']['llmProvider']>;
  llmModel: string;
  voiceId: string;
} {
  const { llmProvider, llmModel, voiceId } = record.snapshot;
  if (!llmProvider || !llmModel || !voiceId) {
    throw new Error('the published Agent has no language model or voice');
  }
  return { llmProvider, llmModel, voiceId };
}

/** The pipeline step: the models of the published snapshot, built for this room. */
export async function buildSpeechPipeline(
  deps: SessionDependencies,
  record: AgentSessionRecord,
  parts: {
    prepared: PreparedConversation;
    transcripts: TranscriptPublisher;
    meter: AgentSessionMeter;
  },
  log: Logger,
): Promise<SpeechPipeline> {
  const playout = new PlayoutLedger(TTS_SAMPLE_RATE_HZ);
  const speech = agentSpeech(deps, record, playout);
  const { voiceId } = runnableModels(record);
  const language = await userSpeechLanguage(
    deps.sttLanguage,
    voiceId,
    () => deps.api.voiceSampleLanguages(record.workspaceId, voiceId),
    record.snapshot.language ?? null,
  );
  log.info({ stt: deps.stt.name, language: language ?? 'detected' }, 'recognizer language');
  // Silero's start and end of speech delimit the utterances the recognizer transcribes, and
  // its pauses start the transcription early; in push-to-talk the key does (controls.ts).
  // A job taking a session over starts in the session's stored mode, from the first frame.
  const initialMode = startingInputMode(record.inputMode);
  let inputMode: () => InputMode = () => initialMode;
  const vad = vadWatchingPauses(deps.vad, deps.earlyStartPauseMs, {
    silenceStarted: () => {
      if (inputMode() === 'automatic') recognizer.silenceStarted();
    },
    speechResumed: () => recognizer.speechResumed(),
  });
  // An application session's backend is asked about each turn before the model is.
  const preemptive = deps.workerConfig.AGENT_PREEMPTIVE_GENERATION && record.kind !== 'application';
  const recognizer = new AwpStt({
    provider: deps.stt,
    language,
    preflight: preemptive,
    onAudio: (ms) => {
      parts.meter.transcribed(ms);
      deps.api.sessions.addUsage(record.id, { sttMs: ms }).catch(() => {});
    },
  });
  // Model calls are charged once their question is in the conversation (a discarded
  // preemptive answer never is); the session that tells is built with the model.
  let charges: AnsweredCharges | undefined;
  const model = await languageModel(deps, record, parts, log, (answering, charge) => {
    if (charges) charges.answered(answering, charge);
    else charge();
  });
  recognizer.setPushToTalk(initialMode === 'push-to-talk');
  const voiceSession = createVoiceSession(vad, recognizer, model, speech, {
    preemptive,
    initialMode,
  });
  charges = chargeAnsweredCalls(voiceSession);
  voiceSession.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (inputMode() !== 'automatic') return;
    if (event.newState === 'speaking') recognizer.utteranceStarted();
    else if (event.oldState === 'speaking') recognizer.flush();
  });
  return {
    voiceSession,
    speech,
    recognizer,
    playout,
    language,
    setInputMode: (mode) => {
      inputMode = mode;
    },
  };
}

function agentSpeech(
  deps: SessionDependencies,
  record: AgentSessionRecord,
  playout: PlayoutLedger,
): AwpTts {
  const { workerConfig } = deps;
  const apiBase =
    record.environment === 'production' ? workerConfig.AWP_API_URL : workerConfig.AWP_API_DEV_URL;
  return new AwpTts({
    streamUrl: `${apiBase.replace(/^http/, 'ws').replace(/\/+$/, '')}/v1/tts/stream`,
    // Agent speech tokens: the Agents product's own credential for this session (charged
    // to it, outside the key's synthesis limits), not a `tts` stream token.
    token: () => deps.api.agentSpeechToken(record),
    voiceId: runnableModels(record).voiceId,
    partnerSessionId: agentSessionLedgerId(record.id),
    onAudio: (order, text, samples) => playout.addAudio(order, text, samples),
    onWords: (order, text, words) => playout.addWords(order, text, words),
  });
}

/** The Agent's language model, priced as text conversations pay, usage stored as it goes. */
async function languageModel(
  deps: SessionDependencies,
  record: AgentSessionRecord,
  parts: {
    prepared: PreparedConversation;
    transcripts: TranscriptPublisher;
    meter: AgentSessionMeter;
  },
  log: Logger,
  answered: (answering: string | undefined, charge: () => void) => void,
): Promise<AwpLlm> {
  const { llmProvider, llmModel } = runnableModels(record);
  const catalog = deps.api.languageModels(log);
  const provider = await catalog.provider(llmProvider);
  if (!provider) throw new Error(`language-model provider ${llmProvider} is not configured`);
  const price = catalog.model(llmProvider, llmModel);
  const { app, capabilities } = parts.prepared;
  return new AwpLlm({
    provider,
    model: llmModel,
    thinkingLevel: record.snapshot.thinkingLevel,
    onUsage: (tokens, answering) =>
      answered(answering, () => {
        const cost = parts.meter.modelCall(tokens, price);
        deps.api.sessions
          .addUsage(record.id, {
            llmInputTokens: tokens.inputTokens,
            llmOutputTokens: tokens.outputTokens,
            llmMillicredits: cost,
          })
          .catch(() => {});
      }),
    onDeclined: (reason) => parts.transcripts.declined(reason),
    ...(app ? { tools: app.toolDefinitions } : {}),
    ...(capabilities?.definitions.length
      ? { tools: () => [...capabilities.definitions], stayQuiet: true }
      : {}),
  });
}

function createVoiceSession(
  vad: voice.AgentSessionOptions['vad'],
  recognizer: AwpStt,
  model: AwpLlm,
  speech: AwpTts,
  turns: { preemptive: boolean; initialMode: InputMode },
): voice.AgentSession {
  return new voice.AgentSession({
    // Silero's pauses start the recognizer early (docs/decisions.md, "early transcription").
    vad,
    stt: recognizer,
    llm: model,
    tts: speech,
    // VAD turns and VAD barge-in (push-to-talk: the key's turns, controls.ts): nothing
    // here calls LiveKit Cloud inference.
    turnHandling: {
      turnDetection: turns.initialMode === 'automatic' ? 'vad' : 'manual',
      endpointing: { minDelay: 400 },
      interruption: {
        enabled: true,
        mode: 'vad',
        minDuration: 100,
        resumeFalseInterruption: false,
      },
      // The model is asked with the transcript of the user's pause (AwpStt's preflight)
      // and its answer kept if no speech follows. Speech is synthesized only once the turn
      // is committed: a discarded answer never reaches the speech ledger.
      preemptiveGeneration: { enabled: turns.preemptive, preemptiveTts: false },
    },
    aecWarmupDuration: null,
    userAwayTimeout: null,
  });
}

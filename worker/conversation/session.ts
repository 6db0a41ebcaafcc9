import { ATTR_AUDIO_RESPONSE } from '@awp/protocol';
import { type JobContext, llm, type VAD, voice } from '@livekit/agents';
import { DisconnectReason, type RemoteParticipant, RoomEvent } from '@livekit/rtc-node';
import { userSpeechLanguage } from '../../src/stt/language.ts';
import type { SttProvider } from '../../src/stt/provider.ts';
import {
  agentSessionLedgerId,
  type Config,
  type LiveSessionRecord,
  type Logger,
  userIdentity,
  type WorkerApi,
  type WorkerSessionStore,
} from '../../src/worker-boundary/index.ts';
import { ApplicationRuntime } from '../application/runtime.ts';
import type { WorkerConfig } from '../config.ts';
import { AwpLlm } from '../models/awp-llm.ts';
import { AwpStt } from '../models/awp-stt.ts';
import { AwpTts, TTS_SAMPLE_RATE_HZ } from '../models/awp-tts.ts';
import { vadWatchingPauses } from '../models/vad-pauses.ts';
import { capabilityFrameworkTools } from './capabilities.ts';
import { AgentCaptions } from './captions.ts';
import { type InputMode, registerControls } from './controls.ts';
import { endReason } from './end-reason.ts';
import { MessageIds } from './message-ids.ts';
import { PlayoutLedger } from './playout.ts';
import { renderSessionPrompt } from './prompt.ts';
import { keepRecording, recordingOption } from './recording.ts';
import { SessionToolBilling } from './session-tool-billing.ts';
import { SpokenContext } from './spoken-context.ts';
import { toolFiller } from './tool-fillers.ts';
import { ToolTurns } from './tool-turns.ts';
import { TranscriptPublisher } from './transcripts.ts';
import { TurnLatencies, watchTurnLatencies } from './turn-latency.ts';
import { LiveSessionMeter } from './usage.ts';

export interface SessionDependencies {
  config: Config;
  workerConfig: WorkerConfig;
  /** The api's services for this job (src/worker-boundary). */
  api: WorkerApi;
  vad: VAD;
  stt: SttProvider;
  /** `STT_LANGUAGE`, when set (src/stt/language.ts). */
  sttLanguage?: string | undefined;
  /** A pause that starts transcribing early (`STT_EARLY_START_PAUSE_MS`; 0: none). */
  earlyStartPauseMs: number;
  logger: Logger;
}

/** Longest wait for the user to join before the greeting is spoken anyway. */
const USER_JOIN_WAIT_MS = 30_000;
/** How long the last agent audio may take to play out before the room closes anyway. */
const DEFAULT_MAX_DURATION_MS = 30 * 60_000;

/**
 * Runs one live session in a job process: the published snapshot (overrides applied by
 * the api) as a LiveKit `AgentSession` with Silero VAD turns, our STT, LLM and TTS,
 * transcripts persisted and published, push-to-talk controls, usage recorded and charged
 * when it ends. Resolves when the session is over.
 */
export async function runLiveSession(ctx: JobContext, deps: SessionDependencies): Promise<void> {
  const { config, logger } = deps;
  const metadata = JSON.parse(ctx.job.metadata || '{}') as {
    session_id?: string;
    max_duration_ms?: number;
  };
  const sessionId = metadata.session_id;
  if (!sessionId) throw new Error('dispatch metadata has no session_id');
  const log = logger.child({ session_id: sessionId });
  const { sessions } = deps.api;
  const record = await sessions.byId(sessionId);
  if (!record || !(await sessions.markActive(sessionId))) {
    log.warn('the session is unknown or already over; leaving');
    ctx.shutdown('session_not_runnable');
    return;
  }
  const startedAt = Date.now();
  // The api fails a session whose worker goes silent: report well within its timeout.
  const heartbeat = setInterval(
    () => {
      sessions.heartbeat(sessionId).catch((error) => log.warn({ err: error }, 'heartbeat failed'));
    },
    Math.max(250, Math.floor(config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS / 4)),
  );

  const usage = new LiveSessionMeter({
    sessionCreditsPerMinute: config.PRICE_AGENT_SESSION_CREDITS_PER_MINUTE,
    sttCreditsPerMinute: config.PRICE_STT_CREDITS_PER_MINUTE,
  });
  let ended = false;
  const finish = async (state: 'ended' | 'failed', reason: string) => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    const sessionMs = Date.now() - startedAt;
    const millicredits = usage.totalMillicredits(sessionMs);
    await sessions.end(sessionId, state, reason, { sessionMs, millicredits });
    log.info(
      { state, reason, session_ms: sessionMs, millicredits, web_searches: usage.webSearches.count },
      'session over',
    );
  };
  ctx.addShutdownCallback(async () => {
    await finish('ended', 'worker_shutdown');
  });

  try {
    await runInRoom(
      ctx,
      deps,
      record,
      sessions,
      usage,
      startedAt,
      finish,
      metadata.max_duration_ms,
    );
  } catch (error) {
    log.error({ err: error }, 'session failed');
    await finish('failed', 'worker_error');
    ctx.shutdown('worker_error');
  }
}

async function runInRoom(
  ctx: JobContext,
  deps: SessionDependencies,
  record: LiveSessionRecord,
  sessions: WorkerSessionStore,
  usage: LiveSessionMeter,
  startedAt: number,
  finish: (state: 'ended' | 'failed', reason: string) => Promise<void>,
  maxDurationMs: number | undefined,
): Promise<void> {
  const { config, workerConfig, logger } = deps;
  const { snapshot } = record;
  const log = logger.child({ session_id: record.id });
  if (!snapshot.llmProvider || !snapshot.llmModel || !snapshot.voiceId) {
    throw new Error('the published Agent has no language model or voice');
  }
  const catalog = deps.api.languageModels(log);
  const provider = await catalog.provider(snapshot.llmProvider);
  if (!provider)
    throw new Error(`language-model provider ${snapshot.llmProvider} is not configured`);
  const price = catalog.model(snapshot.llmProvider, snapshot.llmModel);
  // Application sessions: the backend's instructions replace the character card, and it
  // owns the opening (no greeting).
  const messageIds = new MessageIds();
  const app =
    record.kind === 'application' && record.application
      ? new ApplicationRuntime(ctx.room, record.application, {
          deadlineMs: workerConfig.APPLICATION_REQUEST_DEADLINE_MS,
          log,
          messageIds,
        })
      : undefined;
  const capabilities = app
    ? undefined
    : await deps.api.prepareCapabilities(
        record,
        log,
        new SessionToolBilling(
          () => deps.api.creditBalance(record.workspaceId),
          usage,
          () => Date.now() - startedAt,
        ),
      );
  const prompt = app
    ? { instructions: record.application?.spec.instructions ?? '', greeting: '' }
    : renderSessionPrompt(
        snapshot.characterCard,
        record.sessionContext,
        capabilities?.instructions,
      );

  await ctx.connect();
  const transcripts = new TranscriptPublisher(
    ctx.room,
    sessions,
    record.id,
    log,
    (turn) => app?.transcript(turn),
    messageIds,
  );
  const apiBase =
    record.environment === 'production' ? workerConfig.AWP_API_URL : workerConfig.AWP_API_DEV_URL;

  const playout = new PlayoutLedger(TTS_SAMPLE_RATE_HZ);
  const speech = new AwpTts({
    streamUrl: `${apiBase.replace(/^http/, 'ws').replace(/\/+$/, '')}/v1/tts/stream`,
    // Agent speech tokens: the Agents product's own credential for this session (charged
    // to it, outside the key's synthesis limits), not a `tts` stream token.
    token: () => deps.api.agentSpeechToken(record),
    voiceId: snapshot.voiceId,
    partnerSessionId: agentSessionLedgerId(record.id),
    onAudio: (order, text, samples) => playout.addAudio(order, text, samples),
    onWords: (order, text, words) => playout.addWords(order, text, words),
  });
  const { voiceId } = snapshot;
  const language = await userSpeechLanguage(
    deps.sttLanguage,
    voiceId,
    () => deps.api.voiceSampleLanguages(record.workspaceId, voiceId),
    snapshot.language ?? null,
  );
  log.info({ stt: deps.stt.name, language: language ?? 'detected' }, 'recognizer language');
  // Silero's start and end of speech delimit the utterances the recognizer transcribes, and
  // its pauses start the transcription early; in push-to-talk the key does (controls.ts).
  let inputMode: () => InputMode = () => 'automatic';
  const vad = vadWatchingPauses(deps.vad, deps.earlyStartPauseMs, {
    silenceStarted: () => {
      if (inputMode() === 'automatic') recognizer.silenceStarted();
    },
    speechResumed: () => recognizer.speechResumed(),
  });
  const recognizer = new AwpStt({
    provider: deps.stt,
    language,
    onAudio: (ms) => {
      usage.transcribed(ms);
      sessions.addUsage(record.id, { sttMs: ms }).catch(() => {});
    },
  });
  const session = new voice.AgentSession({
    // Silero's pauses start the recognizer early (docs/decisions.md, "early transcription").
    vad,
    stt: recognizer,
    llm: new AwpLlm({
      provider,
      model: snapshot.llmModel,
      thinkingLevel: snapshot.thinkingLevel,
      onUsage: (tokens) => {
        const cost = usage.modelCall(tokens, price);
        sessions
          .addUsage(record.id, {
            llmInputTokens: tokens.inputTokens,
            llmOutputTokens: tokens.outputTokens,
            llmMillicredits: cost,
          })
          .catch(() => {});
      },
      onDeclined: (reason) => transcripts.declined(reason),
      ...(app ? { tools: app.toolDefinitions } : {}),
      ...(capabilities?.definitions.length
        ? { tools: () => [...capabilities.definitions], stayQuiet: true }
        : {}),
    }),
    tts: speech,
    // VAD turns and VAD barge-in: nothing here calls LiveKit Cloud inference.
    turnHandling: {
      turnDetection: 'vad',
      endpointing: { minDelay: 400 },
      interruption: {
        enabled: true,
        mode: 'vad',
        minDuration: 100,
        resumeFalseInterruption: false,
      },
      preemptiveGeneration: { enabled: false },
    },
    aecWarmupDuration: null,
    userAwayTimeout: null,
  });

  // Barge-in latency, measured here: from Silero's start of speech over the agent's speech
  // to LiveKit's audio output reporting the agent's audio cleared (logged as `barge-in`).
  let speechOverAgentAt: number | undefined;
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState === 'speaking') {
      speechOverAgentAt = session.agentState === 'speaking' ? performance.now() : undefined;
    }
    if (inputMode() !== 'automatic') return;
    if (event.newState === 'speaking') recognizer.utteranceStarted();
    else if (event.oldState === 'speaking') recognizer.flush();
  });
  // Per-turn latencies (end of utterance, STT, LLM first token, TTS first audio), for
  // operators: one log line per measure.
  session.on(voice.AgentSessionEventTypes.MetricsCollected, ({ metrics }) => {
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
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, (event) => {
    transcripts.itemAdded(event.item);
  });
  session.on(voice.AgentSessionEventTypes.Error, (event) => {
    const error = event.error as { message?: string; recoverable?: boolean } | undefined;
    transcripts.error({
      code: 'agent_unavailable',
      detail: error?.message ?? 'the agent failed',
      retryable: true,
    });
  });
  const spokenContext = new SpokenContext(session);
  const closed = new Promise<string>((resolve) => {
    session.once(voice.AgentSessionEventTypes.Close, (event) => resolve(String(event.reason)));
  });

  if (app) {
    session.once(voice.AgentSessionEventTypes.Close, () => app.close());
  }
  const toolTurns = new ToolTurns({
    fillerAfterMs: workerConfig.AGENT_TOOL_FILLER_MS,
    filler: toolFiller(language),
    agentSpeaking: () => session.agentState === 'speaking',
    say: (text) => sayFiller(session, transcripts, text),
  });
  // Barge-in over a running tool: the user's speech cancels it (tool-turns.ts).
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState !== 'speaking') return;
    const cancelled = toolTurns.userSpoke();
    if (cancelled > 0) log.info({ tool_calls: cancelled }, 'tool calls cancelled by barge-in');
  });
  await session.start({
    agent: app
      ? app.agent()
      : new voice.Agent({
          instructions: prompt.instructions,
          ...(capabilities?.definitions.length
            ? { tools: capabilityFrameworkTools(capabilities, toolTurns) }
            : {}),
        }),
    room: ctx.room,
    inputOptions: {
      participantIdentity: userIdentity(record.id),
      closeOnDisconnect: true,
      textInputCallback: (agentSession, event) => {
        if (app) {
          agentSession.interrupt();
          return app.textInput(agentSession, event.text, (message) =>
            agentSession.generateReply({ userInput: message }),
          );
        }
        const audio = event.info?.attributes?.[ATTR_AUDIO_RESPONSE] !== 'false';
        agentSession.interrupt();
        if (audio) {
          agentSession.generateReply({ userInput: event.text });
          return;
        }
        // Text in, text out: this one answer is not synthesized (captions.ts shows its text).
        speech.muted = true;
        const handle = agentSession.generateReply({ userInput: event.text });
        return handle.waitForPlayout().finally(() => {
          speech.muted = false;
        });
      },
    },
    outputOptions: { transcriptionEnabled: true, syncTranscription: false },
    record: recordingOption(snapshot.recordingEnabled),
  });
  const captions = new AgentCaptions(ctx.room, playout, () => speech.muted, log);
  captions.install(session);
  // The same turns' voice latency, for the session's report (written in order).
  let latencyWrites = Promise.resolve();
  const latencies = new TurnLatencies((summary, firstAudioMs) => {
    if (firstAudioMs !== undefined) {
      log.info({ end_of_speech_to_first_audio_ms: firstAudioMs }, 'turn metrics: first audio');
    }
    latencyWrites = latencyWrites
      .then(() => sessions.recordLatency(record.id, summary))
      .catch((error) => log.warn({ err: error }, 'turn latency not recorded'));
  });
  watchTurnLatencies(session, latencies);
  // What an interrupted reply actually said, from the playback position LiveKit reports.
  session.output.audio?.on(
    voice.AudioOutput.EVENT_PLAYBACK_FINISHED,
    (event: voice.PlaybackFinishedEvent) => {
      const spoken = playout.finish(event.playbackPosition, event.interrupted);
      captions.finished(spoken, event.interrupted);
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
    },
  );
  await app?.start(session);
  const controls = await registerControls(ctx.room, session, recognizer, (at) =>
    latencies.keyReleased(at),
  );
  inputMode = controls.mode;
  if (prompt.greeting) {
    // The greeting's audio and transcript go to whoever is in the room: on a busy machine the
    // worker can be ready before the user has joined, so wait for them (bounded).
    await Promise.race([
      ctx.waitForParticipant(userIdentity(record.id)),
      new Promise((resolve) => setTimeout(resolve, USER_JOIN_WAIT_MS).unref()),
    ]);
    session.say(prompt.greeting, { allowInterruptions: true });
  }

  // LiveKit's close on disconnect leaves out a participant the server removed; the api
  // removes the user when the session's key is revoked or its workspace suspended.
  ctx.room.on(RoomEvent.ParticipantDisconnected, (participant: RemoteParticipant) => {
    if (
      participant.identity === userIdentity(record.id) &&
      participant.disconnectReason === DisconnectReason.PARTICIPANT_REMOVED
    ) {
      session.shutdown({ reason: 'user_removed' as never });
    }
  });
  const limit = setTimeout(
    () => session.shutdown({ reason: 'max_duration' as never }),
    maxDurationMs ?? config.AGENT_SESSION_MAX_DURATION_MS ?? DEFAULT_MAX_DURATION_MS,
  );
  const reason = await closed;
  clearTimeout(limit);
  if (snapshot.recordingEnabled) {
    await keepRecording(ctx, record, { api: deps.api, log });
  }
  await transcripts.settled();
  await finish('ended', endReason(reason));
  ctx.shutdown('session_ended');
}

/**
 * Says a tool call's filler through the Agent's speech path (synthesized and charged like
 * any agent speech). It stays out of the model's context, where it would split the turn's
 * tool calls from their results; once fully played it is a transcript turn like any other
 * (an interrupted one is persisted by the playout accounting, as every interrupted reply).
 */
function sayFiller(
  session: voice.AgentSession,
  transcripts: TranscriptPublisher,
  text: string,
): voice.SpeechHandle {
  const handle = session.say(text, { allowInterruptions: true, addToChatCtx: false });
  handle
    .waitForPlayout()
    .then(() => {
      if (!handle.interrupted) {
        transcripts.itemAdded(llm.ChatMessage.create({ role: 'assistant', content: text }));
      }
    })
    .catch(() => {});
  return handle;
}

import { ATTR_SESSION_ENDED } from '@awp/protocol';
import { type JobContext, llm, voice } from '@livekit/agents';
import { DisconnectReason, type RemoteParticipant, RoomEvent } from '@livekit/rtc-node';
import { type Logger, userIdentity } from '../../src/worker-boundary/index.ts';
import { AgentCaptions } from './captions.ts';
import { type InputMode, registerControls, startingInputMode } from './controls.ts';
import { endReason } from './end-reason.ts';
import { JobLease, LeaseThread, leaseIntervalMs, leaseStoreLocation } from './job-lease.ts';
import { keepRecording } from './recording.ts';
import { SessionBilling } from './session-billing.ts';
import type { SessionDependencies } from './session-deps.ts';
import { ShutdownHandover } from './session-handover.ts';
import {
  type JobMetadata,
  parseJobMetadata,
  type TakenSession,
  takeSession,
} from './session-job.ts';
import { followPlayout, logTurnMetrics, publishTranscripts } from './session-observers.ts';
import { buildSpeechPipeline, runnableModels, type SpeechPipeline } from './session-pipeline.ts';
import { type PreparedConversation, prepareConversation } from './session-prompt.ts';
import { conversationSoFar, type StoredTurn, speakAfterResume } from './session-resume.ts';
import { startAgent } from './session-start.ts';
import { toolFiller } from './tool-fillers.ts';
import { ToolTurns } from './tool-turns.ts';
import { TranscriptPublisher } from './transcripts.ts';
import { TurnLatencies, watchTurnLatencies } from './turn-latency.ts';

export type { SessionDependencies } from './session-deps.ts';

/** Longest wait for the user to join before the greeting is spoken anyway. */
const USER_JOIN_WAIT_MS = 30_000;
/** How long the last agent audio may take to play out before the room closes anyway. */
const DEFAULT_MAX_DURATION_MS = 30 * 60_000;

/**
 * Runs one Agent session in a job process: the published snapshot (overrides applied by
 * the api) as a LiveKit `AgentSession` with Silero VAD turns, our STT, LLM and TTS,
 * transcripts persisted and published, push-to-talk controls, usage recorded and charged
 * when it ends. A job dispatched to resume a session whose job was lost starts from the
 * conversation so far. Resolves when the session is over (or handed to a newer job).
 */
export async function runAgentSession(ctx: JobContext, deps: SessionDependencies): Promise<void> {
  const job = parseJobMetadata(ctx.job.metadata);
  const log = deps.logger.child({ session_id: job.sessionId });
  // The framework runs shutdown callbacks side by side: one callback orders the session's
  // last database writes before the connections close.
  let stopSession = async (): Promise<void> => {};
  ctx.addShutdownCallback(async () => {
    try {
      await stopSession();
    } finally {
      await deps.closeJobResources();
    }
  });
  const taken = await takeSession(deps.api.sessions, job);
  if (!taken) {
    log.warn('the session is unknown, over or already taken; leaving');
    ctx.shutdown('session_not_runnable');
    return;
  }
  log.info(
    {
      epoch: taken.epoch,
      resumed: taken.resumed,
      input_mode: startingInputMode(taken.record.inputMode),
      pid: process.pid,
    },
    'session job started',
  );
  const billing = await SessionBilling.open(
    taken,
    { config: deps.config, sessions: deps.api.sessions },
    log,
  );
  const lease = new JobLease(
    deps.api.sessions,
    deps.leaseThread ?? new LeaseThread(leaseStoreLocation(deps.config)),
    {
      sessionId: job.sessionId,
      epoch: taken.epoch,
      intervalMs: leaseIntervalMs(deps.config),
      // A loop that has not run for as long as the api waits before failing a session is
      // stuck, not busy: the lease lapses and the session goes to a new job.
      stallBoundMs: deps.config.AGENT_SESSION_HEARTBEAT_TIMEOUT_MS,
    },
    {
      superseded: () => {
        // A newer job runs the session (this one stalled past the bound): leave at once.
        log.warn({ epoch: taken.epoch }, 'session handed to a newer job; leaving');
        billing.handedAway();
        ctx.shutdown('session_handed_over');
      },
      failed: (error) => log.warn({ err: error }, 'lease renewal failed'),
      stalled: (silentMs) =>
        log.warn({ silent_ms: silentMs }, 'job loop stalled; lease left to lapse'),
    },
  );
  const finish = async (state: 'ended' | 'failed', reason: string) => {
    await lease.stop();
    await billing.finish(state, reason);
  };
  const shutdown = new ShutdownHandover(ctx.room, deps, { taken, lease, billing }, log);
  stopSession = async () => {
    if (shutdown.allowed()) await shutdown.handOver();
    else await finish('ended', 'worker_shutdown');
  };
  try {
    await runInRoom(ctx, deps, { taken, job, billing, finish, shutdown }, log);
  } catch (error) {
    log.error({ err: error }, 'session failed');
    await finish('failed', 'worker_error');
    await announceEnd(ctx, 'worker_error');
    ctx.shutdown('worker_error');
  }
}

interface RoomRun {
  taken: TakenSession;
  job: JobMetadata;
  billing: SessionBilling;
  finish: (state: 'ended' | 'failed', reason: string) => Promise<void>;
  shutdown: ShutdownHandover;
}

/** The steps of a session in its room, in order. */
async function runInRoom(
  ctx: JobContext,
  deps: SessionDependencies,
  run: RoomRun,
  log: Logger,
): Promise<void> {
  const { record } = run.taken;
  runnableModels(record);
  const prepared = await prepareConversation(ctx, deps, run.taken, run.billing, log);
  const soFar = run.taken.resumed ? await conversationSoFar(deps.api.sessions, record.id) : [];
  await ctx.connect();
  const transcripts = new TranscriptPublisher(
    ctx.room,
    deps.api.sessions,
    record.id,
    log,
    (turn) => prepared.app?.transcript(turn),
    prepared.messageIds,
  );
  const pipeline = await buildSpeechPipeline(
    deps,
    record,
    { prepared, transcripts, meter: run.billing.meter },
    log,
  );
  const { closed } = await startInRoom(
    ctx,
    deps,
    { pipeline, prepared, transcripts, soFar },
    run,
    log,
  );
  await speakFirst(ctx, run.taken, pipeline.voiceSession, prepared, soFar, log);
  await endWhenClosed(ctx, deps, run, pipeline.voiceSession, closed, transcripts, log);
}

/**
 * The capabilities step and the Agent's start: tool turns, observers, the Agent in the
 * room, turn latencies, the backend's protocol and push-to-talk. Returns the session's
 * close (its reason).
 */
async function startInRoom(
  ctx: JobContext,
  deps: SessionDependencies,
  parts: {
    pipeline: SpeechPipeline;
    prepared: PreparedConversation;
    transcripts: TranscriptPublisher;
    soFar: StoredTurn[];
  },
  run: RoomRun,
  log: Logger,
): Promise<{ closed: Promise<string> }> {
  const { pipeline, prepared, transcripts } = parts;
  const { voiceSession } = pipeline;
  const { record } = run.taken;
  logTurnMetrics(voiceSession, log);
  publishTranscripts(voiceSession, transcripts);
  const playout = followPlayout(pipeline, transcripts, prepared.app, log);
  const closed = new Promise<string>((resolve) => {
    voiceSession.once(voice.AgentSessionEventTypes.Close, (event) => resolve(String(event.reason)));
  });
  if (prepared.app) {
    const { app } = prepared;
    voiceSession.once(voice.AgentSessionEventTypes.Close, () => app.close());
  }
  const toolTurns = toolTurnsOf(voiceSession, transcripts, pipeline.language, deps, log);
  await startAgent(ctx, record, { pipeline, prepared, toolTurns, soFar: parts.soFar });
  const captions = new AgentCaptions(
    ctx.room,
    pipeline.playout,
    { textOnly: () => pipeline.speech.muted, aligns: () => pipeline.speech.aligns },
    log,
  );
  captions.install(voiceSession);
  const latencies = recordLatencies(voiceSession, deps, record.id, log);
  playout.outputStarted(captions);
  await prepared.app?.start(voiceSession);
  if (run.taken.resumed) prepared.app?.resumed();
  const controls = await registerControls(ctx.room, voiceSession, pipeline.recognizer, {
    initialMode: startingInputMode(record.inputMode),
    onCommit: (at) => latencies.keyReleased(at),
    onModeSet: (mode) => storeInputMode(deps, run.taken, mode, log),
  });
  pipeline.setInputMode(controls.mode);
  return { closed };
}

/**
 * Stores the session's input mode for a job that takes it over (it starts in it). A failed
 * write is logged, not thrown: the switch itself took effect in this job.
 */
async function storeInputMode(
  deps: SessionDependencies,
  taken: TakenSession,
  mode: InputMode,
  log: Logger,
): Promise<void> {
  try {
    await deps.api.sessions.recordInputMode(taken.record.id, taken.epoch, mode);
  } catch (error) {
    log.warn({ err: error, input_mode: mode }, 'input mode not stored');
  }
}

/** Tool calls' fillers, and barge-in over a running tool cancelling it (tool-turns.ts). */
function toolTurnsOf(
  voiceSession: voice.AgentSession,
  transcripts: TranscriptPublisher,
  language: string | undefined,
  deps: SessionDependencies,
  log: Logger,
): ToolTurns {
  const toolTurns = new ToolTurns({
    fillerAfterMs: deps.workerConfig.AGENT_TOOL_FILLER_MS,
    filler: toolFiller(language),
    agentSpeaking: () => voiceSession.agentState === 'speaking',
    say: (text) => sayFiller(voiceSession, transcripts, text),
  });
  voiceSession.on(voice.AgentSessionEventTypes.UserStateChanged, (event) => {
    if (event.newState !== 'speaking') return;
    const cancelled = toolTurns.userSpoke();
    if (cancelled > 0) log.info({ tool_calls: cancelled }, 'tool calls cancelled by barge-in');
  });
  return toolTurns;
}

/** The turns' voice latency, for the session's report (written in order). */
function recordLatencies(
  voiceSession: voice.AgentSession,
  deps: SessionDependencies,
  sessionId: string,
  log: Logger,
): TurnLatencies {
  let latencyWrites = Promise.resolve();
  const latencies = new TurnLatencies((summary, firstAudioMs) => {
    if (firstAudioMs !== undefined) {
      log.info({ end_of_speech_to_first_audio_ms: firstAudioMs }, 'turn metrics: first audio');
    }
    latencyWrites = latencyWrites
      .then(() => deps.api.sessions.recordLatency(sessionId, summary))
      .catch((error) => log.warn({ err: error }, 'turn latency not recorded'));
  });
  watchTurnLatencies(voiceSession, latencies);
  return latencies;
}

/**
 * The opening: a new session's greeting, to whoever is in the room (on a busy machine the
 * worker can be ready before the user has joined, so it waits for them, bounded); a
 * resumed session goes on where the lost job left off (session-resume.ts).
 */
async function speakFirst(
  ctx: JobContext,
  taken: TakenSession,
  voiceSession: voice.AgentSession,
  prepared: PreparedConversation,
  soFar: StoredTurn[],
  log: Logger,
): Promise<void> {
  if (taken.resumed) {
    speakAfterResume(voiceSession, soFar, prepared.prompt.greeting, log);
    return;
  }
  if (!prepared.prompt.greeting) return;
  await Promise.race([
    ctx.waitForParticipant(userIdentity(taken.record.id)),
    new Promise((resolve) => setTimeout(resolve, USER_JOIN_WAIT_MS).unref()),
  ]);
  voiceSession.say(prepared.prompt.greeting, { allowInterruptions: true });
}

/**
 * The end step: the user removed by the server or the session's limit closes it; once
 * closed, the recording is kept, the transcript settled, and the session ended and charged.
 */
async function endWhenClosed(
  ctx: JobContext,
  deps: SessionDependencies,
  run: RoomRun,
  voiceSession: voice.AgentSession,
  closed: Promise<string>,
  transcripts: TranscriptPublisher,
  log: Logger,
): Promise<void> {
  const { record } = run.taken;
  // LiveKit's close on disconnect leaves out a participant the server removed; the api
  // removes the user when the session's key is revoked or its workspace suspended.
  ctx.room.on(RoomEvent.ParticipantDisconnected, (participant: RemoteParticipant) => {
    if (
      participant.identity === userIdentity(record.id) &&
      participant.disconnectReason === DisconnectReason.PARTICIPANT_REMOVED
    ) {
      voiceSession.shutdown({ reason: 'user_removed' as never });
    }
  });
  const maxDurationMs =
    run.job.maxDurationMs ?? deps.config.AGENT_SESSION_MAX_DURATION_MS ?? DEFAULT_MAX_DURATION_MS;
  const limit = setTimeout(
    () => voiceSession.shutdown({ reason: 'max_duration' as never }),
    maxDurationMs,
  );
  const reason = await closed;
  clearTimeout(limit);
  // The framework closes the session itself (`user_initiated`; this code always names its
  // reason) when the job is shut down from outside: the conversation goes on elsewhere.
  if (reason === 'user_initiated' && run.shutdown.allowed()) {
    await run.shutdown.handOver();
    return;
  }
  // Given up already (handed to a newer job, or taken out of the room): the session's
  // recording, end and charge are another job's.
  if (run.billing.over) return;
  if (record.snapshot.recordingEnabled) {
    await keepRecording(ctx, record, { api: deps.api, log });
  }
  await transcripts.settled();
  const ended = endReason(reason);
  await run.finish('ended', ended);
  await announceEnd(ctx, ended);
  ctx.shutdown('session_ended');
}

/**
 * Marks the Agent participant with the session's end reason before it leaves: the client
 * then ends the conversation at once instead of waiting for a new job to take it over.
 */
async function announceEnd(ctx: JobContext, reason: string): Promise<void> {
  const local = ctx.room.isConnected ? ctx.room.localParticipant : undefined;
  await local?.setAttributes({ [ATTR_SESSION_ENDED]: reason }).catch(() => undefined);
}

/**
 * Says a tool call's filler through the Agent's speech path (synthesized and charged like
 * any agent speech). It stays out of the model's context, where it would split the turn's
 * tool calls from their results; once fully played it is a transcript turn like any other
 * (an interrupted one is persisted by the playout accounting, as every interrupted reply).
 */
function sayFiller(
  voiceSession: voice.AgentSession,
  transcripts: TranscriptPublisher,
  text: string,
): voice.SpeechHandle {
  const handle = voiceSession.say(text, { allowInterruptions: true, addToChatCtx: false });
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

import {
  ATTR_INPUT_MODE,
  type InputMode,
  RPC_INPUT_MODE,
  RPC_INTERRUPT,
  RPC_PTT_CANCEL,
  RPC_PTT_COMMIT,
  RPC_PTT_START,
} from '@awp/protocol';
import type { voice } from '@livekit/agents';
import { type Room, RpcError } from '@livekit/rtc-node';
import type { AwpStt } from '../models/awp-stt.ts';

export type { InputMode } from '@awp/protocol';

const OK = JSON.stringify({ ok: true });
/**
 * Audio still taken after the push-to-talk commit, beyond the backlog the worker has not read
 * yet: the last words are still in flight (network, jitter buffer) when the user releases
 * the key.
 */
const COMMIT_TAIL_MS = 300;

function invalid(detail: string): RpcError {
  // 1400: an application error code (LiveKit reserves 1001-1999 for its own; any number works).
  return new RpcError(1400, JSON.stringify({ code: 'invalid_request', detail }));
}

/**
 * The mode a job starts in: the one the session's last job set (stored on the session, so
 * a job taking it over after a crash goes on in it), else `automatic`, the protocol's
 * start until the client sends its mode.
 */
export function startingInputMode(stored: InputMode | null): InputMode {
  return stored ?? 'automatic';
}

/** What the session needs to know about the controls. */
export interface Controls {
  /** How user turns end now. */
  mode(): InputMode;
}

/**
 * The RPC methods of docs/agent-protocol.md on the agent participant: push-to-talk
 * (`awp.ptt.start|commit|cancel`), `awp.input_mode` and `awp.interrupt`. Push-to-talk uses
 * manual turn detection (no VAD turns, no VAD barge-in) with the microphone input kept
 * enabled: the recognizer's gate, not the framework's input switch, decides which audio
 * is the held utterance. The framework's switch drops frames by when they reach it, so
 * on a busy worker, where frames run late, it cut off the first words (frames before the
 * start were dropped, and the STT restart of a cleared turn lost more) and the last ones
 * (frames behind the commit were dropped). The gate keeps a lead-in from before the start
 * and ends the utterance on the audio's own clock; a commit commits the turn once its
 * transcript is in, so the answer starts at once.
 */
export async function registerControls(
  room: Room,
  voiceSession: voice.AgentSession,
  recognizer: AwpStt,
  hooks: {
    /**
     * The mode the job starts in: the session's stored mode when the job takes a session
     * over (`startingInputMode`), so a user in push-to-talk is not interrupted by their
     * open microphone before the client has sent its mode again.
     */
    initialMode: InputMode;
    /** Told when a push-to-talk turn is committed (epoch ms): where the user's wait starts. */
    onCommit: (atMs: number) => void;
    /** Told of each switch, before the RPC replies: the session stores it for a new job. */
    onModeSet: (mode: InputMode) => Promise<void>;
  },
): Promise<Controls> {
  const participant = room.localParticipant;
  if (!participant) throw new Error('not connected to the room');
  // The pipeline was built in this mode (session-pipeline.ts): nothing to apply again.
  let mode: InputMode = hooks.initialMode;

  const setMode = async (next: InputMode) => {
    mode = next;
    voiceSession.updateOptions({
      turnHandling: { turnDetection: next === 'automatic' ? 'vad' : 'manual' },
    });
    recognizer.setPushToTalk(next === 'push-to-talk');
    if (next === 'push-to-talk') {
      recognizer.flush();
      voiceSession.clearUserTurn();
    }
    await hooks.onModeSet(next);
    await participant.setAttributes({ [ATTR_INPUT_MODE]: next });
  };
  await participant.setAttributes({ [ATTR_INPUT_MODE]: mode });

  participant.registerRpcMethod(RPC_PTT_START, async () => {
    if (mode !== 'push-to-talk') await setMode('push-to-talk');
    voiceSession.interrupt();
    // No clearUserTurn here: it restarts the framework's STT stream, losing the lead-in and
    // the frames in flight. Nothing is pending: outside a hold the gate passes no audio,
    // and a commit or cancel ended the last turn.
    recognizer.utteranceStarted();
    return OK;
  });
  participant.registerRpcMethod(RPC_PTT_COMMIT, async () => {
    if (mode !== 'push-to-talk') throw invalid(`Call ${RPC_PTT_START} first.`);
    hooks.onCommit(Date.now());
    // The reply waits for the turn's audio only: a loaded recognizer can take longer than
    // the client's control timeout. The turn is committed once its transcript is in the
    // framework, so it is answered at once.
    const { transcribed } = await recognizer.commitUtterance(COMMIT_TAIL_MS);
    transcribed
      .then(() => voiceSession.commitUserTurn())
      // The session may have ended meanwhile: nothing is left to answer.
      .catch(() => undefined);
    return OK;
  });
  participant.registerRpcMethod(RPC_PTT_CANCEL, async () => {
    if (mode !== 'push-to-talk') throw invalid(`Call ${RPC_PTT_START} first.`);
    recognizer.discardUtterance();
    voiceSession.clearUserTurn();
    return OK;
  });
  participant.registerRpcMethod(RPC_INPUT_MODE, async (data) => {
    let requested: unknown;
    try {
      requested = (JSON.parse(data.payload || '{}') as { mode?: unknown }).mode;
    } catch {
      throw invalid('The payload must be JSON.');
    }
    if (requested !== 'push-to-talk' && requested !== 'automatic') {
      throw invalid('mode is push-to-talk or automatic.');
    }
    await setMode(requested);
    return OK;
  });
  participant.registerRpcMethod(RPC_INTERRUPT, async () => {
    voiceSession.interrupt();
    return OK;
  });
  return { mode: () => mode };
}

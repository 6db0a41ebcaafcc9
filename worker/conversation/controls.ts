import type { voice } from '@livekit/agents';
import { type Room, RpcError } from '@livekit/rtc-node';
import type { AwpStt } from '../models/awp-stt.ts';

export type InputMode = 'push-to-talk' | 'automatic';

/** Participant attribute that says how user turns end. */
export const INPUT_MODE_ATTRIBUTE = 'awp.input_mode';
const OK = JSON.stringify({ ok: true });
/**
 * Audio still taken after `awp.ptt.commit`: the last words are still in flight (network,
 * jitter buffer) when the user releases the key.
 */
const COMMIT_TAIL_MS = 300;

function invalid(detail: string): RpcError {
  // 1400: an application error code (LiveKit reserves 1001-1999 for its own; any number works).
  return new RpcError(1400, JSON.stringify({ code: 'invalid_request', detail }));
}

/** What the session needs to know about the controls. */
export interface Controls {
  /** How user turns end now. */
  mode(): InputMode;
}

/**
 * The RPC methods of docs/agent-protocol.md on the agent participant: push-to-talk
 * (`awp.ptt.start|commit|cancel`), `awp.input_mode` and `awp.interrupt`. Push-to-talk
 * follows LiveKit's pattern: manual turn detection, the microphone input enabled only
 * between start and commit; a commit flushes the speech recognizer and commits the turn
 * once its transcript is in, so the answer starts at once.
 */
export async function registerControls(
  room: Room,
  session: voice.AgentSession,
  recognizer: AwpStt,
): Promise<Controls> {
  const participant = room.localParticipant;
  if (!participant) throw new Error('not connected to the room');
  let mode: InputMode = 'automatic';
  await participant.setAttributes({ [INPUT_MODE_ATTRIBUTE]: mode });

  const setMode = async (next: InputMode) => {
    mode = next;
    session.updateOptions({
      turnHandling: { turnDetection: next === 'automatic' ? 'vad' : 'manual' },
    });
    session.input.setAudioEnabled(next === 'automatic');
    if (next === 'push-to-talk') {
      recognizer.flush();
      session.clearUserTurn();
    }
    await participant.setAttributes({ [INPUT_MODE_ATTRIBUTE]: next });
  };

  participant.registerRpcMethod('awp.ptt.start', async () => {
    if (mode !== 'push-to-talk') await setMode('push-to-talk');
    session.interrupt();
    session.clearUserTurn();
    recognizer.utteranceStarted();
    session.input.setAudioEnabled(true);
    return OK;
  });
  participant.registerRpcMethod('awp.ptt.commit', async () => {
    if (mode !== 'push-to-talk') throw invalid('Call awp.ptt.start first.');
    await new Promise((resolve) => setTimeout(resolve, COMMIT_TAIL_MS));
    session.input.setAudioEnabled(false);
    // The transcript of the held turn is in the framework before the turn is committed.
    // Bounded by the recognizer's flush timeout, below the client library's RPC timeout.
    await recognizer.flushAndWait();
    session.commitUserTurn();
    return OK;
  });
  participant.registerRpcMethod('awp.ptt.cancel', async () => {
    if (mode !== 'push-to-talk') throw invalid('Call awp.ptt.start first.');
    session.input.setAudioEnabled(false);
    recognizer.discardUtterance();
    session.clearUserTurn();
    return OK;
  });
  participant.registerRpcMethod('awp.input_mode', async (data) => {
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
  participant.registerRpcMethod('awp.interrupt', async () => {
    session.interrupt();
    return OK;
  });
  return { mode: () => mode };
}

import { RPC_INPUT_MODE } from '@awp/protocol';
import { type Room, RoomEvent } from 'livekit-client';
import { ConversationError } from '../errors.ts';
import type { InputMode } from '../session.ts';
import { type ControlQueue, callAgent, isNotReady } from './controls.ts';
import { aborted } from './start-session.ts';

/**
 * Waits until `findAgent` names the Agent's identity, looking again whenever someone joins
 * (and at least every 250 ms). `agent_unavailable` once `deadline` passes; `aborted` when
 * `signal` fires.
 */
export async function waitForAgent(
  room: Room,
  findAgent: () => string | null,
  deadline: number,
  signal: AbortSignal,
): Promise<string> {
  for (;;) {
    const agent = findAgent();
    if (agent) return agent;
    if (signal.aborted) throw aborted();
    if (Date.now() >= deadline) {
      throw new ConversationError('agent_unavailable', 'The Agent did not join in time.', {
        retryable: true,
      });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(250, Math.max(0, deadline - Date.now())));
      room.once(RoomEvent.ParticipantConnected, done);
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        room.off(RoomEvent.ParticipantConnected, done);
        resolve();
      }
    });
  }
}

/** Opens the microphone; `microphone_unavailable` when the browser refuses. */
export async function openMicrophone(room: Room): Promise<void> {
  try {
    await room.localParticipant.setMicrophoneEnabled(true);
  } catch (error) {
    throw new ConversationError(
      'microphone_unavailable',
      `The microphone could not be opened: ${String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Sets the first input mode. The Agent may still be registering its methods when it joins:
 * retry until the deadline.
 */
export async function setInitialMode(
  controls: ControlQueue,
  room: Room,
  agent: string,
  mode: InputMode,
  deadline: number,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    try {
      await controls.run(() => callAgent(room.localParticipant, agent, RPC_INPUT_MODE, { mode }));
      return;
    } catch (error) {
      if (!isNotReady(error) || Date.now() >= deadline || signal.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

import { ApiError } from '../errors.ts';
import type { AgentSessions } from './agent-sessions.ts';
import type { LivekitRooms } from './livekit-rooms.ts';

/**
 * What a refused start needs after its wait for a worker: the undo and the answer. The
 * start's route ends the wait that long before its answer is due (WAITING_ANSWER_LIMIT_MS
 * after the request arrived; the steps before the wait can take seconds on a loaded
 * machine).
 */
export const START_UNDO_RESERVE_MS = 2_000;

/**
 * The LiveKit half of a session start (managed and application): the room, the worker's
 * dispatch, and the wait until a worker took the job. When LiveKit refuses, or no worker
 * takes the job within the wait, the start is undone before the error goes out: the room
 * is removed (with it the dispatch, and the job of a worker that accepts too late) and
 * the session is failed without a charge (`livekit_unavailable`, `no_worker`), and an
 * application start's `requestId` is freed for the backend's retry. The wait lasts
 * `workerWaitMs`, and ends by `waitEndsBy` (ms since the epoch) whatever it was.
 */
export async function openSessionRoom(
  rooms: LivekitRooms,
  sessions: AgentSessions,
  sessionId: string,
  maxDurationMs: number,
  waitEndsBy: number,
): Promise<void> {
  let taken: boolean;
  try {
    const dispatchId = await rooms.open(sessionId, maxDurationMs);
    taken = await rooms.workerTook(sessionId, dispatchId, waitEndsBy);
  } catch (error) {
    await undo(rooms, sessions, sessionId, 'livekit_unavailable');
    throw new ApiError(
      'service_unavailable',
      `The LiveKit server did not accept the session: ${(error as Error).message}`,
    );
  }
  if (!taken) {
    await undo(rooms, sessions, sessionId, 'no_worker');
    throw new ApiError(
      'provider_unavailable',
      'No agent worker took the session in time (every worker is full, or none is running); retry later.',
    );
  }
}

async function undo(
  rooms: LivekitRooms,
  sessions: AgentSessions,
  sessionId: string,
  reason: string,
): Promise<void> {
  await sessions.end(sessionId, 'failed', reason);
  await sessions.releaseStartRequest(sessionId);
  rooms.close(sessionId).catch(() => {});
}

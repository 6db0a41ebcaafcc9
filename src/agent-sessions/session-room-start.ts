import { ApiError } from '../errors.ts';
import type { AgentSessions } from './agent-sessions.ts';
import type { LivekitRooms } from './livekit-rooms.ts';

/**
 * The LiveKit half of a session start (managed and application): the room, the worker's
 * dispatch, and the wait until a worker took the job. When LiveKit refuses, or no worker
 * takes the job within the wait, the start is undone before the error goes out: the room
 * is removed (with it the dispatch, and the job of a worker that accepts too late) and
 * the session is failed without a charge (`livekit_unavailable`, `no_worker`), and an
 * application start's `requestId` is freed for the backend's retry.
 */
export async function openSessionRoom(
  rooms: LivekitRooms,
  sessions: AgentSessions,
  sessionId: string,
  maxDurationMs: number,
): Promise<void> {
  let taken: boolean;
  try {
    taken = await rooms.workerTook(sessionId, await rooms.open(sessionId, maxDurationMs));
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
      `No agent worker took the session within ${rooms.settings.workerWaitMs} ms (every worker is full, or none is running); retry later.`,
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

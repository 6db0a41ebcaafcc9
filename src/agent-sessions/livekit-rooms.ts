import { agentIdentity } from '@awp/protocol';
import {
  AccessToken,
  AgentDispatchClient,
  RoomServiceClient,
  TrackSource,
} from 'livekit-server-sdk';
import { type Config, ConfigError } from '../app/config.ts';
import { settleWithin } from '../system/deadline.ts';

/** The deployment's LiveKit, or undefined when `LIVEKIT_URL` is unset. */
export function livekitRoomsFromConfig(config: Config): LivekitRooms | undefined {
  if (!config.LIVEKIT_URL) return undefined;
  if (!config.LIVEKIT_API_KEY || !config.LIVEKIT_API_SECRET) {
    throw new ConfigError([
      'LIVEKIT_URL is set: LIVEKIT_API_KEY and LIVEKIT_API_SECRET are required',
    ]);
  }
  return new LivekitRooms({
    url: config.LIVEKIT_URL,
    publicUrl: config.LIVEKIT_PUBLIC_URL ?? config.LIVEKIT_URL.replace(/^http/, 'ws'),
    apiKey: config.LIVEKIT_API_KEY,
    apiSecret: config.LIVEKIT_API_SECRET,
    agentName: config.AGENT_NAME,
    workerWaitMs: config.AGENT_SESSION_WORKER_WAIT_MS,
  });
}

export interface LivekitSettings {
  /** Server URL the api calls (`ws://` or `http://`; server APIs use its http form). */
  url: string;
  /** URL browsers connect to. */
  publicUrl: string;
  apiKey: string;
  apiSecret: string;
  /** The worker's registered name (explicit dispatch). */
  agentName: string;
  /** How long a start waits for a worker to take the session's job (0: it does not wait). */
  workerWaitMs: number;
}

/** How often a start asks LiveKit whether a worker took the session's job. */
const DISPATCH_POLL_MS = 100;

/** Identity of the end user in a session's room. */
export function userIdentity(sessionId: string): string {
  return `user-${sessionId}`;
}

/** Identity of the agent in a session's room (the client SDK finds the Agent by it). */
export { agentIdentity };

/** Room name of a session. */
export function sessionRoom(sessionId: string): string {
  return `awp-${sessionId}`;
}

/**
 * The LiveKit side of a session start: the room, the worker's explicit dispatch, and the
 * end user's access token (microphone audio and data out, subscribe in, nothing else).
 */
export class LivekitRooms {
  readonly #rooms: RoomServiceClient;
  readonly #dispatch: AgentDispatchClient;

  constructor(readonly settings: LivekitSettings) {
    const httpUrl = settings.url.replace(/^ws/, 'http');
    this.#rooms = new RoomServiceClient(httpUrl, settings.apiKey, settings.apiSecret);
    this.#dispatch = new AgentDispatchClient(httpUrl, settings.apiKey, settings.apiSecret);
  }

  /**
   * Creates the room and dispatches the worker to it with `{session_id}` as metadata;
   * returns the dispatch's id.
   */
  async open(sessionId: string, maxDurationMs: number): Promise<string> {
    const room = sessionRoom(sessionId);
    await this.#rooms.createRoom({
      name: room,
      // The user, the agent, and a backend for application sessions.
      maxParticipants: 3,
      emptyTimeout: 60,
      departureTimeout: 10,
      metadata: JSON.stringify({ session_id: sessionId }),
    });
    const dispatch = await this.#dispatch.createDispatch(room, this.settings.agentName, {
      metadata: JSON.stringify({ session_id: sessionId, max_duration_ms: maxDurationMs }),
    });
    return dispatch.id;
  }

  /**
   * Whether a worker took the dispatch's job within `workerWaitMs`: LiveKit lists the job in
   * the dispatch's state once a worker accepted it, or the worker's agent joined the room,
   * whichever is seen first (a node lists the job only after asking every node which agents
   * are registered, which can take seconds; the agent often joins sooner). When every worker
   * is full or none is registered LiveKit gives the job to no one and never retries it, so
   * only the bound ends the wait: `workerWaitMs` from now, and `endsBy` (ms since the
   * epoch) at the latest, even while LiveKit is still answering a look.
   */
  async workerTook(sessionId: string, dispatchId: string, endsBy: number): Promise<boolean> {
    if (this.settings.workerWaitMs === 0) return true;
    const deadline = Math.min(Date.now() + this.settings.workerWaitMs, endsBy);
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // A look with no answer by the deadline counts as not seen (it goes on unobserved).
      const seen = await settleWithin(this.#jobTaken(sessionId, dispatchId), left, () => false);
      if (seen) return true;
      const after = deadline - Date.now();
      if (after <= 0) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(DISPATCH_POLL_MS, after)));
    }
  }

  /** One look: the dispatch's state lists a job a worker took, or the agent joined. */
  async #jobTaken(sessionId: string, dispatchId: string): Promise<boolean> {
    const room = sessionRoom(sessionId);
    const [dispatch, participants] = await Promise.all([
      this.#dispatch.getDispatch(dispatchId, room),
      this.#rooms.listParticipants(room),
    ]);
    if (dispatch?.state?.jobs.some((job) => job.state?.participantIdentity)) return true;
    return participants.some((p) => p.identity === agentIdentity(sessionId));
  }

  /**
   * Dispatches the worker again to a running session's room: the job resumes the
   * conversation as generation `epoch` (its previous job stopped renewing its lease).
   */
  async redispatch(sessionId: string, epoch: number, maxDurationMs: number): Promise<void> {
    // LiveKit notices a killed job's participant only at its departure timeout (15-20 s):
    // removed now, the end user's client sees the Agent gone at once. The new job joins
    // under its own identity (its epoch), so the stale one can never be taken for it.
    await this.#rooms
      .removeParticipant(sessionRoom(sessionId), agentIdentity(sessionId, epoch - 1))
      .catch(() => {});
    await this.#dispatch.createDispatch(sessionRoom(sessionId), this.settings.agentName, {
      metadata: JSON.stringify({
        session_id: sessionId,
        max_duration_ms: maxDurationMs,
        resume_epoch: epoch,
      }),
    });
  }

  /**
   * Whether the session's end user is in its room now (LiveKit's own participant list); a
   * room that no longer exists has nobody in it.
   */
  async endUserPresent(sessionId: string): Promise<boolean> {
    try {
      const participants = await this.#rooms.listParticipants(sessionRoom(sessionId));
      return participants.some((p) => p.identity === userIdentity(sessionId));
    } catch (error) {
      if ((error as { status?: number }).status === 404) return false;
      throw error;
    }
  }

  /** Removes the room (a failed start); errors are the caller's to ignore. */
  async close(sessionId: string): Promise<void> {
    await this.#rooms.deleteRoom(sessionRoom(sessionId));
  }

  /**
   * Takes the end user out of a session's room, which ends the conversation (the worker
   * closes and bills it as the user leaving). When the user is not in the room, the room
   * itself is removed, so the agent leaves too and nobody can join it any more.
   */
  async removeUser(sessionId: string): Promise<void> {
    const room = sessionRoom(sessionId);
    try {
      await this.#rooms.removeParticipant(room, userIdentity(sessionId));
    } catch {
      await this.#rooms.deleteRoom(room);
    }
  }

  /** The end user's token: this room only, microphone and data, subscribe. */
  async userToken(
    sessionId: string,
    options: { name?: string | undefined; ttlSeconds: number },
  ): Promise<string> {
    const token = new AccessToken(this.settings.apiKey, this.settings.apiSecret, {
      identity: userIdentity(sessionId),
      ...(options.name ? { name: options.name } : {}),
      ttl: options.ttlSeconds,
    });
    token.addGrant({
      room: sessionRoom(sessionId),
      roomJoin: true,
      canPublish: true,
      canPublishSources: [TrackSource.MICROPHONE],
      canPublishData: true,
      canSubscribe: true,
      canUpdateOwnMetadata: false,
    });
    return token.toJwt();
  }
}

import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AgentSessionRecord, AgentSessions } from '../agent-sessions/agent-sessions.ts';
import { type LivekitRooms, sessionRoom } from '../agent-sessions/livekit-rooms.ts';
import { openSessionRoom } from '../agent-sessions/session-room-start.ts';
import type { PublishedAgent } from '../agents/agent-store.ts';
import type { Agents } from '../agents/agents.ts';
import { type Avatar, DEFAULT_AVATAR_ID, findAvatar } from '../agents/avatars/catalog.ts';
import type { AuthContext } from '../auth/context.ts';
import type { Database } from '../db/schema.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { backendIdentity, mintControlToken } from './control-token.ts';
import type { ApplicationStartBody, ApplicationStarted } from './schemas.ts';

/**
 * The avatar as a start answers it, its `image_url` absolute for the caller: the route
 * builds it from the request and the public base URLs.
 */
export type AvatarEntryOf = (avatar: Avatar) => ApplicationStarted['session']['avatar'];

export interface ApplicationSessionsOptions {
  db: Kysely<Database>;
  agents: Agents;
  sessions: AgentSessions;
  /** Undefined when no LiveKit is configured: starts answer 503. */
  rooms: LivekitRooms | undefined;
  maxDurationMs: number;
  /** Sessions a workspace may run at once (0: no limit); beyond it `429 rate_limited`. */
  maxSessionsPerWorkspace: number;
}

/**
 * Starts backend-owned application sessions: the same room and explicit worker dispatch
 * as a managed session, the backend's application stored with it, and two credentials
 * (the backend's data-only control token, the end user's microphone token). A start is
 * idempotent by `chatSessionId` + `requestId`: a repeat answers the same session with
 * fresh credentials, which is how a restarted backend rejoins.
 */
export class ApplicationSessions {
  constructor(private readonly options: ApplicationSessionsOptions) {}

  /**
   * Starts (or answers again) an application session; the wait for a worker ends by
   * `waitEndsBy` (ms since the epoch) at the latest.
   */
  async start(
    caller: AuthContext,
    body: ApplicationStartBody,
    avatarEntryOf: AvatarEntryOf,
    waitEndsBy: number,
  ): Promise<ApplicationStarted> {
    const { sessions } = this.options;
    const existing = await sessions.applicationStart(
      caller.workspaceId,
      body.chatSessionId,
      body.requestId,
    );
    if (existing) return this.#resume(caller, body, existing, avatarEntryOf);

    const scope = { workspaceId: caller.workspaceId, environment: caller.environment };
    const published = await this.#publishedAgent(scope, body.agentId);
    await this.#requireCredit(caller.workspaceId);
    const rooms = this.#rooms();

    const sessionId = uuidv7();
    const expiresAt = new Date(Date.now() + this.options.maxDurationMs);
    try {
      await sessions.create({
        id: sessionId,
        snapshot: {
          ...withoutManagedCapabilities(published),
          recordingEnabled: body.recording ?? published.recordingEnabled,
        },
        apiKeyId: caller.keyId,
        endUserId: undefined,
        room: sessionRoom(sessionId),
        overrides: undefined,
        sessionContext: undefined,
        expiresAt,
        maxRunningPerWorkspace: this.options.maxSessionsPerWorkspace,
        application: {
          spec: body.application,
          backendIdentity: backendIdentity(sessionId),
          chatSessionId: body.chatSessionId,
          startRequestId: body.requestId,
        },
      });
    } catch (error) {
      // A concurrent start with the same keys won the unique index: answer its session.
      const winner = await sessions.applicationStart(
        caller.workspaceId,
        body.chatSessionId,
        body.requestId,
      );
      if (winner) return this.#resume(caller, body, winner, avatarEntryOf);
      throw error;
    }
    await openSessionRoom(rooms, sessions, sessionId, this.options.maxDurationMs, waitEndsBy);
    const avatar = this.#avatar(published.avatarId, avatarEntryOf);
    return this.#credentials(rooms, sessionId, body.agentId, expiresAt, avatar);
  }

  /** A repeated start: the stored session, when it is still the same and still running. */
  async #resume(
    caller: AuthContext,
    body: ApplicationStartBody,
    record: AgentSessionRecord,
    avatarEntryOf: AvatarEntryOf,
  ): Promise<ApplicationStarted> {
    if (record.agentId !== body.agentId || record.environment !== caller.environment) {
      throw new ApiError(
        'conflict',
        'This chatSessionId and requestId already started a session of another Agent; use a new requestId.',
      );
    }
    const expiresAt = new Date(record.expiresAt);
    if (
      record.state === 'ended' ||
      record.state === 'failed' ||
      expiresAt.getTime() <= Date.now()
    ) {
      throw new ApiError(
        'conflict',
        'The session this chatSessionId and requestId started is over; start a new one with a new requestId.',
      );
    }
    const avatar = this.#avatar(record.snapshot.avatarId, avatarEntryOf);
    return this.#credentials(this.#rooms(), record.id, record.agentId, expiresAt, avatar);
  }

  /** The session's avatar as a managed session's start answers it (the catalog default else). */
  #avatar(avatarId: string, avatarEntryOf: AvatarEntryOf): ApplicationStarted['session']['avatar'] {
    const avatar: Avatar | undefined = findAvatar(avatarId) ?? findAvatar(DEFAULT_AVATAR_ID);
    if (!avatar) throw new Error('the avatar catalog has no default avatar');
    return avatarEntryOf(avatar);
  }

  async #credentials(
    rooms: LivekitRooms,
    sessionId: string,
    agentId: string,
    expiresAt: Date,
    avatar: ApplicationStarted['session']['avatar'],
  ): Promise<ApplicationStarted> {
    const control = await mintControlToken(rooms.settings, sessionId);
    const userToken = await rooms.userToken(sessionId, {
      ttlSeconds: Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)),
    });
    const room = sessionRoom(sessionId);
    return {
      control: {
        livekit_url: rooms.settings.publicUrl,
        room,
        token: control.token,
        identity: control.identity,
        expires_at: control.expiresAt.toISOString(),
      },
      session: {
        session_id: sessionId,
        agent_id: agentId,
        livekit: { url: rooms.settings.publicUrl, token: userToken },
        room,
        avatar,
        expires_at: expiresAt.toISOString(),
      },
    };
  }

  /** The Agent's active publication with a public voice, as session starts require. */
  async #publishedAgent(scope: TenantScope, agentId: string): Promise<PublishedAgent> {
    const { agents } = this.options;
    const agent = await agents.get(scope, agentId);
    const published = await agents.activePublication(scope, agentId);
    if (!published) {
      if (!(await agents.hasPublicVoice(scope, agent.draft.voiceId))) {
        throw new ApiError('agent_not_api_ready', 'The Agent has no public voice selection.');
      }
      throw new ApiError('agent_not_published', 'Publish the Agent before starting sessions.');
    }
    if (!(await agents.hasPublicVoice(scope, published.voiceId))) {
      throw new ApiError(
        'agent_not_api_ready',
        'The published voice is no longer in the catalog; select a voice and publish again.',
      );
    }
    return published;
  }

  /** A session speaks and thinks at the workspace's expense: an empty balance cannot start one. */
  async #requireCredit(workspaceId: string): Promise<void> {
    const row = await this.options.db
      .selectFrom('workspaces')
      .select('credit_balance_millicredits')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    if (!row || Number(row.credit_balance_millicredits) <= 0) {
      throw new ApiError('insufficient_credit', 'The workspace has no credit left for a session.');
    }
  }

  #rooms(): LivekitRooms {
    const { rooms } = this.options;
    if (!rooms) {
      throw new ApiError(
        'service_unavailable',
        'Live Agent sessions need a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET (npm start runs one locally).',
      );
    }
    return rooms;
  }
}

/**
 * The publication as an application session runs it: the backend owns memory, documents,
 * calendar and search, so the Agent's own are off (the worker also leaves out stay-quiet).
 */
function withoutManagedCapabilities(published: PublishedAgent): PublishedAgent {
  return {
    ...published,
    webSearchEnabled: false,
    memoryEnabled: false,
    calendarEnabled: false,
    documentsEnabled: false,
    publication: {
      ...published.publication,
      memoryEnabled: false,
      calendarEnabled: false,
      documentsEnabled: false,
    },
  };
}

// Starts application sessions for worker tests with the steps the api's start route takes:
// the Agent's active publication as the snapshot, the stored session (kind application,
// the backend's spec, the bound backend identity), the room with the worker dispatched, the
// end user's token and the backend's control credential (data only).

import { randomUUID } from 'node:crypto';
import { AccessToken } from 'livekit-server-sdk';
import { AgentStore } from '../../src/agents/agent-store.ts';
import { LiveSessions } from '../../src/agents/live-sessions.ts';
import { LivekitRooms, sessionRoom } from '../../src/agents/livekit-rooms.ts';
import type { ApplicationSpec, ApplicationTool } from '../../src/application/types.ts';
import type { DatabaseHandle } from '../../src/db/connect.ts';
import type { LivekitServer } from './livekit.ts';

export interface StartedApplicationSession {
  sessionId: string;
  agentIdentity: string;
  backendIdentity: string;
  url: string;
  userToken: string;
  controlToken: string;
}

/** A declared tool with the spec's defaults. */
export function declaredTool(
  name: string,
  options: Partial<Omit<ApplicationTool, 'name'>> = {},
): ApplicationTool {
  return {
    name,
    description: options.description ?? `The ${name} tool.`,
    parameters: options.parameters ?? { type: 'object', properties: {} },
    cancellable: options.cancellable ?? false,
    onDuplicate: options.onDuplicate ?? 'allow',
    runReply: options.runReply ?? true,
  };
}

export async function startApplicationSession(options: {
  handle: DatabaseHandle;
  livekit: LivekitServer;
  agentName: string;
  workspaceId: string;
  apiKeyId: string;
  agentId: string;
  spec: Partial<ApplicationSpec>;
}): Promise<StartedApplicationSession> {
  const { handle, livekit } = options;
  const published = await new AgentStore(handle.db).activePublication(
    options.workspaceId,
    'production',
    options.agentId,
  );
  if (!published) throw new Error('the Agent is not published');
  const sessionId = randomUUID();
  const backendIdentity = `app-backend-${sessionId}`;
  await new LiveSessions(handle.db, { heartbeatTimeoutMs: 30_000 }).create({
    id: sessionId,
    snapshot: published,
    apiKeyId: options.apiKeyId,
    endUserId: undefined,
    room: sessionRoom(sessionId),
    overrides: undefined,
    sessionContext: undefined,
    expiresAt: new Date(Date.now() + 30 * 60_000),
    application: {
      spec: {
        instructions: options.spec.instructions ?? 'You are the booking desk. Be brief.',
        history: options.spec.history ?? [],
        tools: options.spec.tools ?? [],
      },
      backendIdentity,
      chatSessionId: randomUUID(),
      startRequestId: randomUUID(),
    },
  });
  const rooms = new LivekitRooms({
    url: livekit.url,
    publicUrl: livekit.url,
    apiKey: livekit.apiKey,
    apiSecret: livekit.apiSecret,
    agentName: options.agentName,
  });
  await rooms.open(sessionId, 30 * 60_000);
  const userToken = await rooms.userToken(sessionId, { ttlSeconds: 600 });
  const control = new AccessToken(livekit.apiKey, livekit.apiSecret, {
    identity: backendIdentity,
    ttl: 300,
  });
  control.addGrant({
    room: sessionRoom(sessionId),
    roomJoin: true,
    canPublish: false,
    canSubscribe: false,
    canPublishData: true,
    canUpdateOwnMetadata: true,
  });
  return {
    sessionId,
    agentIdentity: `agent-${sessionId}`,
    backendIdentity,
    url: livekit.url,
    userToken,
    controlToken: await control.toJwt(),
  };
}

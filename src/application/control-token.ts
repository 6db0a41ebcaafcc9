import { APPLICATION_LIMITS } from '@awp/protocol';
import { decodeJwt } from 'jose';
import { AccessToken } from 'livekit-server-sdk';
import { type LivekitSettings, sessionRoom } from '../agent-sessions/livekit-rooms.ts';

/** The LiveKit identity of a session's backend: the only one the worker takes commands from. */
export function backendIdentity(sessionId: string): string {
  return `app-backend-${sessionId}`;
}

/** A minted control credential and the end of its join window. */
export interface ControlToken {
  token: string;
  identity: string;
  expiresAt: Date;
}

/**
 * The backend's credential for an application session: join this room only, within five
 * minutes (LiveKit checks the expiry when a participant joins; a connected participant
 * stays), data only.
 *
 * Not `hidden`: LiveKit blanks the sender identity of a hidden participant's data packets
 * and hides its attributes, so the worker could neither tell the bound backend from any
 * other sender nor read its capability attribute. The backend is a visible participant
 * without tracks; the client library ignores it.
 *
 * `canSubscribe: false` stops audio and video from reaching the backend; LiveKit still
 * delivers data (text streams) to it, since data travels on its own channel, which the
 * integration test checks against a real server. Which peer the data goes to is the
 * protocol's part (`destinationIdentities`): a grant cannot name a destination.
 */
export async function mintControlToken(
  settings: Pick<LivekitSettings, 'apiKey' | 'apiSecret'>,
  sessionId: string,
): Promise<ControlToken> {
  const identity = backendIdentity(sessionId);
  const ttlSeconds = APPLICATION_LIMITS.controlJoinWindowMs / 1000;
  const token = new AccessToken(settings.apiKey, settings.apiSecret, {
    identity,
    ttl: ttlSeconds,
  });
  token.addGrant({
    room: sessionRoom(sessionId),
    roomJoin: true,
    canPublish: false,
    canPublishSources: [],
    canPublishData: true,
    canSubscribe: false,
    canUpdateOwnMetadata: true,
  });
  const jwt = await token.toJwt();
  // The answer's `expires_at` is the token's own `exp`, so the two never disagree.
  return { token: jwt, identity, expiresAt: new Date((decodeJwt(jwt).exp ?? 0) * 1000) };
}

import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Environment } from '../app/config.ts';

/** Validity of a TTS stream token and of a realtime transcription token (the spec's 2 minutes). */
export const STREAM_TOKEN_TTL_MS = 2 * 60 * 1000;

/**
 * What a token opens: `/v1/tts/stream` (`tts`, or `agent_speech`: the agent worker speaking
 * for one Agent session) or `/v1/realtime-transcription`.
 */
export type StreamTokenKind = 'tts' | 'transcription' | 'agent_speech';

/** One audience per kind, so a token of one kind never passes for another. */
const AUDIENCES: Record<StreamTokenKind, string> = {
  tts: 'awp:tts-stream',
  transcription: 'awp:realtime-transcription',
  agent_speech: 'awp:agent-speech',
};
const ISSUER = 'awp';

/** What a verified stream token says about its holder. */
export interface StreamTokenClaims {
  /** The workspace key that minted the token; the token dies with it. */
  readonly keyId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly expiresAt: Date;
  /** `agent_speech` tokens: the Agent session whose Agent speaks. */
  readonly agentSessionId?: string;
}

/**
 * Short-lived credentials for `/v1/tts/stream` and `/v1/realtime-transcription`, minted
 * with a workspace key (and, for agent speech, by the agent worker, which shares the
 * signing secret). A token is a compact HS256 JWT (one audience per kind) naming the
 * issuing key, its workspace and environment, and for agent speech its session; it
 * carries no secret. It is never accepted where a workspace key is
 * required, because those routes take `awp_` keys only.
 */
export class StreamTokens {
  readonly #secret: Uint8Array;

  /** `secret`: at least 32 bytes shared by every api process; random when omitted. */
  constructor(secret: string | undefined) {
    this.#secret = secret ? new TextEncoder().encode(secret) : randomBytes(32);
  }

  async mint(
    claims: Omit<StreamTokenClaims, 'expiresAt'>,
    now = Date.now(),
    kind: StreamTokenKind = 'tts',
  ): Promise<{ token: string; expiresAt: Date }> {
    const expiresAtSeconds = Math.floor((now + STREAM_TOKEN_TTL_MS) / 1000);
    const expiresAt = new Date(expiresAtSeconds * 1000);
    const token = await new SignJWT({
      org: claims.workspaceId,
      env: claims.environment,
      ...(claims.agentSessionId ? { sid: claims.agentSessionId } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.keyId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCES[kind])
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(expiresAtSeconds)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(this.#secret);
    return { token, expiresAt };
  }

  /** The token's claims, or undefined when it is malformed, forged, expired or of another kind. */
  async verify(
    token: string,
    kind: StreamTokenKind = 'tts',
  ): Promise<StreamTokenClaims | undefined> {
    if (token.length > 2048 || token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.#secret, {
        algorithms: ['HS256'],
        audience: AUDIENCES[kind],
        issuer: ISSUER,
        clockTolerance: 0,
      });
      const { sub, org, env, exp, sid } = payload;
      if (typeof sub !== 'string' || typeof org !== 'string' || typeof exp !== 'number') {
        return undefined;
      }
      if (env !== 'production' && env !== 'development') return undefined;
      // An agent speech token always names its session; no other kind does.
      if ((kind === 'agent_speech') !== (typeof sid === 'string')) return undefined;
      return {
        keyId: sub,
        workspaceId: org,
        environment: env,
        expiresAt: new Date(exp * 1000),
        ...(typeof sid === 'string' ? { agentSessionId: sid } : {}),
      };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}

import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Environment } from '../config.ts';

/** Validity of a TTS stream token (the spec's 2 minutes). */
export const STREAM_TOKEN_TTL_MS = 2 * 60 * 1000;

const AUDIENCE = 'awp:tts-stream';
const ISSUER = 'awp';

/** What a verified stream token says about its holder. */
export interface StreamTokenClaims {
  /** The workspace key that minted the token; the token dies with it. */
  readonly keyId: string;
  readonly workspaceId: string;
  readonly environment: Environment;
  readonly expiresAt: Date;
}

/**
 * Short-lived credentials for `/v1/tts/stream`, minted with a workspace key. A token is a
 * compact HS256 JWT (audience `awp:tts-stream`) naming the issuing key, its workspace and
 * environment; it carries no secret. It is never accepted where a workspace key is
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
  ): Promise<{ token: string; expiresAt: Date }> {
    const expiresAtSeconds = Math.floor((now + STREAM_TOKEN_TTL_MS) / 1000);
    const expiresAt = new Date(expiresAtSeconds * 1000);
    const token = await new SignJWT({ org: claims.workspaceId, env: claims.environment })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.keyId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(expiresAtSeconds)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(this.#secret);
    return { token, expiresAt };
  }

  /** The token's claims, or undefined when it is malformed, forged or expired. */
  async verify(token: string): Promise<StreamTokenClaims | undefined> {
    if (token.length > 2048 || token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.#secret, {
        algorithms: ['HS256'],
        audience: AUDIENCE,
        issuer: ISSUER,
        clockTolerance: 0,
      });
      const { sub, org, env, exp } = payload;
      if (typeof sub !== 'string' || typeof org !== 'string' || typeof exp !== 'number') {
        return undefined;
      }
      if (env !== 'production' && env !== 'development') return undefined;
      return { keyId: sub, workspaceId: org, environment: env, expiresAt: new Date(exp * 1000) };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return undefined;
      throw error;
    }
  }
}

/** Issuers Google's ID tokens name. */
const GOOGLE_ISSUERS = new Set(['accounts.google.com', 'https://accounts.google.com']);
/** Clock difference tolerated on `exp`. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** Thrown when an ID token is malformed or not meant for this client. */
export class IdTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdTokenError';
  }
}

/**
 * The Google account an ID token names: its stable id (`sub`) and email. The token comes
 * from Google's token endpoint in the code exchange, over TLS, in an answer to a request
 * authenticated with the client secret, so its signature is not checked (OpenID Connect
 * Core 3.1.3.7 lets TLS stand in for it there, and Google's guide says the same); its
 * issuer, audience and expiry are.
 */
export function readIdToken(
  idToken: string,
  clientId: string,
  now: Date = new Date(),
): { subject: string; email: string } {
  const payload = idToken.split('.')[1];
  if (payload === undefined) throw new IdTokenError('not a JWT');
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    throw new IdTokenError('the payload is not JSON');
  }
  if (typeof claims.iss !== 'string' || !GOOGLE_ISSUERS.has(claims.iss))
    throw new IdTokenError('not issued by Google');
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.includes(clientId)) throw new IdTokenError('issued to another client');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 + CLOCK_SKEW_MS < now.getTime())
    throw new IdTokenError('expired');
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new IdTokenError('no subject');
  if (typeof claims.email !== 'string' || claims.email === '') throw new IdTokenError('no email');
  return { subject: claims.sub, email: claims.email };
}

import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { googleFailure } from './google-errors.ts';
import { type GoogleSettings, REQUESTED_SCOPES } from './settings.ts';

/** What Google's token endpoint granted. */
export interface GrantedTokens {
  accessToken: string;
  /** When the access token stops working. */
  accessTokenExpiresAt: Date;
  /** Present after a consent with `access_type=offline`. */
  refreshToken: string | undefined;
  /** The scopes granted; with granular consent a user may leave some out. */
  scopes: string[];
  idToken: string | undefined;
}

/** Lifetime assumed when Google does not say (`expires_in` is always sent in practice). */
const DEFAULT_ACCESS_TOKEN_LIFETIME_MS = 3_600_000;

/**
 * Google's OAuth 2.0 web-server flow through google-auth-library's `OAuth2Client`, pointed
 * at the configured endpoints: the authorization URL (PKCE S256, offline access, consent
 * prompt), the code exchange, refreshes and revocation. The client authenticates with its
 * secret in the form body (`client_secret_post`). Every failure is a `GoogleFailure`.
 */
export class GoogleOAuth {
  constructor(private readonly settings: GoogleSettings) {}

  /** A PKCE code verifier and its S256 challenge. */
  async codeVerifier(): Promise<{ codeVerifier: string; codeChallenge: string }> {
    const { codeVerifier, codeChallenge } = await this.#client().generateCodeVerifierAsync();
    return { codeVerifier, codeChallenge: codeChallenge ?? '' };
  }

  /** Where to send the end user's browser to consent. */
  authorizationUrl(input: { redirectUri: string; state: string; codeChallenge: string }): string {
    return this.#client().generateAuthUrl({
      redirect_uri: input.redirectUri,
      scope: [...REQUESTED_SCOPES],
      access_type: 'offline',
      prompt: 'consent',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: CodeChallengeMethod.S256,
    });
  }

  /** Exchanges an authorization code (with its PKCE verifier) for tokens. */
  async exchangeCode(input: {
    code: string;
    codeVerifier: string;
    redirectUri: string;
  }): Promise<GrantedTokens> {
    try {
      const { tokens } = await this.#client().getToken({
        code: input.code,
        codeVerifier: input.codeVerifier,
        redirect_uri: input.redirectUri,
      });
      return granted(tokens);
    } catch (error) {
      throw googleFailure(error);
    }
  }

  /** A fresh access token from a refresh token. */
  async refresh(refreshToken: string): Promise<GrantedTokens> {
    const client = this.#client();
    client.setCredentials({ refresh_token: refreshToken });
    try {
      const { credentials } = await client.refreshAccessToken();
      return granted(credentials);
    } catch (error) {
      throw googleFailure(error);
    }
  }

  /**
   * Revokes a token at Google. Revoking a refresh token ends the whole grant: every token
   * of that Google account issued to this client stops working.
   */
  async revoke(token: string): Promise<void> {
    try {
      await this.#client().revokeToken(token);
    } catch (error) {
      throw googleFailure(error);
    }
  }

  #client(): OAuth2Client {
    return new OAuth2Client({
      clientId: this.settings.clientId,
      clientSecret: this.settings.clientSecret,
      endpoints: {
        oauth2AuthBaseUrl: this.settings.authorizationUrl,
        oauth2TokenUrl: this.settings.tokenUrl,
        oauth2RevokeUrl: this.settings.revokeUrl,
      },
      transporterOptions: { timeout: this.settings.timeoutMs },
    });
  }
}

function granted(tokens: {
  access_token?: string | null;
  expiry_date?: number | null;
  refresh_token?: string | null;
  scope?: string | undefined;
  id_token?: string | null;
}): GrantedTokens {
  if (!tokens.access_token) throw googleFailure(new Error('no access token in the answer'));
  return {
    accessToken: tokens.access_token,
    accessTokenExpiresAt: new Date(
      tokens.expiry_date ?? Date.now() + DEFAULT_ACCESS_TOKEN_LIFETIME_MS,
    ),
    refreshToken: tokens.refresh_token ?? undefined,
    scopes: (tokens.scope ?? '').split(/\s+/).filter((scope) => scope !== ''),
    idToken: tokens.id_token ?? undefined,
  };
}

/**
 * Where the client starts sessions when `apiOrigin` is not given: the production listener of
 * a local install (`npm start` serves production on port 8080, development on 8081). AWP is
 * self-hosted, so there is no global production host: pages served elsewhere set `apiOrigin`
 * to their deployment's public production URL (the api's `PUBLIC_BASE_URL`).
 */
export const DEFAULT_API_ORIGIN = 'http://localhost:8080';

/** Version of this library. */
export const VERSION = '0.4.0';

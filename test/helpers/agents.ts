/** Language-model configuration for Agent tests: both vendors listed, nothing ever called. */
export const LLM_ENV = {
  OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  LOCAL_LLM: 'false',
  TOKEN_SIGNING_SECRET: 'agent-tests-signing-secret-0123456789abcdef',
};

/** A built-in native voice every workspace with TTS has. */
export const NATIVE_VOICE = 'voice_en0ITv6xOZPfMiT0sGIW';

export interface ApiReply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields.
  body: any;
  bytes: Buffer;
}

/**
 * A small client of the api for one key: JSON bodies by default, raw bytes when `body` is a
 * Buffer (with the given content type).
 */
export function apiClient(baseUrl: string, key: string | undefined) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiReply> => {
    const init: RequestInit = {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined && !Buffer.isBuffer(body)
          ? { 'content-type': 'application/json' }
          : {}),
        ...headers,
      },
    };
    if (body !== undefined)
      init.body = Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body);
    const response = await fetch(`${baseUrl}${path}`, init);
    const bytes = Buffer.from(await response.arrayBuffer());
    let parsed: unknown;
    if ((response.headers.get('content-type') ?? '').includes('json') && bytes.byteLength > 0) {
      parsed = JSON.parse(bytes.toString('utf8'));
    }
    return { status: response.status, headers: response.headers, body: parsed, bytes };
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

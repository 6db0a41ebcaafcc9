import { redactSecret } from '../upstream/credentials.ts';
import { UpstreamHttpClient } from '../upstream/http-client.ts';
import type { VendorErrorInfo } from '../upstream/pcm-stream.ts';
import { failureForStatus, UpstreamProviderError } from '../upstream/status.ts';
import type { UpstreamTimeouts } from '../upstream/timeouts.ts';

/** A multipart form as bytes and its `content-type` (with boundary), built by undici. */
export async function encodeMultipart(
  form: FormData,
): Promise<{ body: Buffer; contentType: string }> {
  const request = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  const contentType = request.headers.get('content-type');
  if (contentType === null) throw new Error('multipart encoding produced no content type');
  return { body: Buffer.from(await request.arrayBuffer()), contentType };
}

/** Settings of a {@link VendorJsonClient}. */
export interface VendorJsonClientOptions {
  readonly provider: string;
  readonly baseUrl: string;
  readonly timeouts?: Partial<UpstreamTimeouts> | undefined;
  readonly requestIdHeaders?: readonly string[];
  readonly parseError: (status: number, body: string) => VendorErrorInfo;
}

/**
 * JSON request/response calls to a vendor's management API (voices, models), on the same
 * keep-alive client and timeouts as synthesis. Non-2xx answers and transport failures
 * become {@link UpstreamProviderError}s with the status mapping of synthesis.
 */
export class VendorJsonClient {
  readonly #client: UpstreamHttpClient;
  readonly #options: VendorJsonClientOptions;

  constructor(options: VendorJsonClientOptions) {
    this.#options = options;
    this.#client = new UpstreamHttpClient({
      baseUrl: options.baseUrl,
      timeouts: options.timeouts,
      requestIdHeaders: options.requestIdHeaders,
    });
  }

  /** Sends the request; resolves with the parsed JSON body (null for an empty 2xx body). */
  async call(
    request: {
      method: 'GET' | 'POST' | 'DELETE';
      path: string;
      headers: Record<string, string>;
      body?: Buffer;
    },
    signal: AbortSignal,
  ): Promise<unknown> {
    const { provider } = this.#options;
    let response: Awaited<ReturnType<UpstreamHttpClient['send']>>;
    try {
      response = await this.#client.send(request, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new UpstreamProviderError('unavailable', `${provider}: ${(error as Error).message}`, {
        provider,
        cause: error,
      });
    }
    let text: string;
    try {
      text = await response.text(1024 * 1024);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new UpstreamProviderError('unavailable', `${provider}: ${(error as Error).message}`, {
        provider,
        status: response.status,
        cause: error,
      });
    } finally {
      response.close();
    }
    if (response.status < 200 || response.status > 299) {
      let info: VendorErrorInfo = {};
      try {
        info = this.#options.parseError(response.status, text);
      } catch {
        info = {};
      }
      // A vendor could echo the key back; it never reaches History or a log line.
      let vendorMessage = info.message?.slice(0, 300);
      for (const name of ['xi-api-key', 'authorization']) {
        const secret = request.headers[name]?.replace(/^Bearer /, '');
        if (vendorMessage !== undefined && secret)
          vendorMessage = redactSecret(vendorMessage, secret);
      }
      throw new UpstreamProviderError(
        failureForStatus(response.status),
        `${provider} answered ${response.status}${info.code ? ` ${info.code}` : ''}${vendorMessage ? `: ${vendorMessage}` : ''}`,
        {
          provider,
          status: response.status,
          vendorCode: info.code,
          upstreamRequestId: response.requestId,
        },
      );
    }
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new UpstreamProviderError('unavailable', `${provider} answered invalid JSON`, {
        provider,
        status: response.status,
      });
    }
  }

  close(): void {
    this.#client.close();
  }
}

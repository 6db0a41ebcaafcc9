import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json(): unknown;
}

/**
 * A request through node:http, for what fetch forbids (a custom Host header) or hides
 * (sending a body slowly).
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

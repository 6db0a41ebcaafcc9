// client.tts.synthesizeWithTimestamps' HTTP exchange, against a local server that answers
// as docs/openapi.json documents POST /v1/tts/with-timestamps: what is sent, how the answer
// is read, and how a refusal becomes a typed error. The route itself is exercised by the
// api's integration tests (test/integration/tts/).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwpClient, InvalidRequestError } from '../../../../backend-sdk/src/index.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage['headers'];
  body: unknown;
}

let server: Server;
let client: AwpClient;
const seen: Seen[] = [];
let reply: (res: ServerResponse) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      reply(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  client = new AwpClient({
    apiKey: 'awp_test',
    baseUrl: `http://127.0.0.1:${port}`,
    maxAttempts: 1,
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const AUDIO = Buffer.from([1, 0, 2, 0, 3, 0, 4, 0]);
const TIMINGS = [
  { text: 'Hello', start_ms: 0, end_ms: 310 },
  { text: 'there', start_ms: 310, end_ms: 620 },
];

describe('client.tts.synthesizeWithTimestamps', () => {
  it('posts the body to /v1/tts/with-timestamps and returns the decoded audio with its timings', async () => {
    reply = (res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-request-id': '0b9f6f0c-5b8e-4c1e-9a43-7f1f1f7a2b10',
        'x-charge-credits': '0.012',
      });
      res.end(
        JSON.stringify({
          request_id: '0b9f6f0c-5b8e-4c1e-9a43-7f1f1f7a2b10',
          audit_id: 'aud_2b6c0e8e-0d7e-4d3f-8f7b-3c1f2a9b8d01',
          format: 'pcm_24000',
          audio: AUDIO.toString('base64'),
          duration_ms: 620,
          voice_route: 'default',
          alignment: 'word',
          timings: TIMINGS,
        }),
      );
    };
    const speech = await client.tts.synthesizeWithTimestamps({
      text: 'Hello there.',
      voice_id: 'voice_abc',
      output_format: 'pcm_24000',
      alignment: 'word',
    });
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/v1/tts/with-timestamps',
      headers: { authorization: 'Bearer awp_test', 'content-type': 'application/json' },
      body: {
        text: 'Hello there.',
        voice_id: 'voice_abc',
        output_format: 'pcm_24000',
        alignment: 'word',
      },
    });
    expect(Buffer.from(speech.audio).equals(AUDIO)).toBe(true);
    expect({ ...speech, audio: undefined }).toEqual({
      audio: undefined,
      format: 'pcm_24000',
      requestId: '0b9f6f0c-5b8e-4c1e-9a43-7f1f1f7a2b10',
      auditId: 'aud_2b6c0e8e-0d7e-4d3f-8f7b-3c1f2a9b8d01',
      durationMs: 620,
      chargeCredits: 0.012,
      voiceRoute: 'default',
      alignment: 'word',
      timings: TIMINGS,
    });
  });

  it('turns a 400 invalid_request (a voice that cannot align) into InvalidRequestError', async () => {
    reply = (res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          event: 'error',
          request_id: '5d1c9a4e-2f3b-4a6c-8e7d-9b0a1c2d3e4f',
          code: 'invalid_request',
          retryable: false,
          detail: 'This voice cannot time its audio by word.',
        }),
      );
    };
    const error = await client.tts
      .synthesizeWithTimestamps({ text: 'Hi.', voice_id: 'voice_k', output_format: 'pcm_24000' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({
      code: 'invalid_request',
      detail: 'This voice cannot time its audio by word.',
      status: 400,
      requestId: '5d1c9a4e-2f3b-4a6c-8e7d-9b0a1c2d3e4f',
    });
  });
});

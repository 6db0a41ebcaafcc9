import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseWav } from '../../media/wav.ts';

/**
 * A fake OpenAI-compatible transcription endpoint, `POST /v1/audio/transcriptions`:
 * `Authorization: Bearer <key>` (else 401 with OpenAI's error body), a multipart body
 * (parsed by undici's `Request.formData()`) with a `file` that must be a 16-bit PCM WAV, a
 * non-empty `model`, optional `language` and `prompt`, and `response_format` `json`
 * (default) or `verbose_json` (`text`, `language`, `duration`, `segments`). Anything else
 * is a 400 as OpenAI answers it.
 *
 * What was "said" comes from a script: `say(text)` queues the text of the next request
 * (an empty text when the script is empty, as for silence).
 */
export interface FakeTranscriptionsOptions {
  apiKey: string;
}

/** A way the fake fails the next request. */
export type FakeTranscriptionFailure =
  | { kind: 'status'; status: 429 | 500 | 503 | 400; retryAfterSeconds?: number }
  /** Read the request, then never answer. */
  | { kind: 'hang' };

/** One request as the fake saw it. */
export interface RecordedTranscription {
  authValid: boolean;
  status: number;
  model: string | undefined;
  language: string | undefined;
  prompt: string | undefined;
  responseFormat: string | undefined;
  fileName: string | undefined;
  fileType: string | undefined;
  sampleRateHz: number | undefined;
  audioMs: number | undefined;
}

export interface FakeTranscriptions {
  /** Base URL including `/v1`, for `STT_OPENAI_BASE_URL`. */
  readonly url: string;
  readonly requests: RecordedTranscription[];
  say(text: string): void;
  /** Forgets unused script lines and failures (between tests). */
  reset(): void;
  failNext(failure: FakeTranscriptionFailure): void;
  close(): Promise<void>;
}

const LANGUAGE_NAMES: Record<string, string> = { en: 'english', fr: 'french', de: 'german' };

export async function startFakeTranscriptions(
  options: FakeTranscriptionsOptions,
): Promise<FakeTranscriptions> {
  const script: string[] = [];
  let generation = 0;
  const failures: FakeTranscriptionFailure[] = [];
  const requests: RecordedTranscription[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(errorBody(String(error), 'server_error'));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A request that began before a reset belongs to a test that is over (one that
    // cancelled it, say): it must not take a line scripted for the next test.
    const startedIn = generation;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const record: RecordedTranscription = {
      authValid: request.headers.authorization === `Bearer ${options.apiKey}`,
      status: 0,
      model: undefined,
      language: undefined,
      prompt: undefined,
      responseFormat: undefined,
      fileName: undefined,
      fileType: undefined,
      sampleRateHz: undefined,
      audioMs: undefined,
    };
    const answer = (status: number, payload: string, headers: Record<string, string> = {}) => {
      record.status = status;
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(payload);
    };
    if (request.method !== 'POST' || request.url !== '/v1/audio/transcriptions') {
      return answer(404, errorBody('Not found', 'invalid_request_error'));
    }
    requests.push(record);
    if (!record.authValid) {
      return answer(
        401,
        errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'),
      );
    }
    const failure = failures.shift();
    if (failure?.kind === 'hang') return;
    if (failure?.kind === 'status') {
      const headers: Record<string, string> =
        failure.retryAfterSeconds !== undefined
          ? { 'retry-after': String(failure.retryAfterSeconds) }
          : {};
      const type =
        failure.status === 429
          ? 'rate_limit_exceeded'
          : failure.status === 400
            ? 'invalid_request_error'
            : 'server_error';
      return answer(failure.status, errorBody(`Injected ${failure.status}`, type), headers);
    }

    let form: FormData;
    try {
      form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? '' },
        body,
      }).formData();
    } catch {
      return answer(400, errorBody('Could not parse multipart form', 'invalid_request_error'));
    }
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    record.model = field('model');
    record.language = field('language');
    record.prompt = field('prompt');
    record.responseFormat = field('response_format');
    const file = form.get('file');
    if (!(file instanceof File))
      return answer(400, errorBody("Missing required parameter: 'file'.", 'invalid_request_error'));
    record.fileName = file.name;
    record.fileType = file.type;
    if (record.model === undefined || record.model === '') {
      return answer(
        400,
        errorBody("Missing required parameter: 'model'.", 'invalid_request_error'),
      );
    }
    const format = record.responseFormat ?? 'json';
    if (format !== 'json' && format !== 'verbose_json') {
      return answer(
        400,
        errorBody(
          `The fake supports json and verbose_json, not ${format}.`,
          'invalid_request_error',
        ),
      );
    }
    let durationS: number;
    try {
      const wav = parseWav(Buffer.from(await file.arrayBuffer()));
      if (wav.formatTag !== 1 || wav.bitsPerSample !== 16 || wav.channels !== 1)
        throw new Error('not 16-bit mono PCM');
      record.sampleRateHz = wav.sampleRateHz;
      durationS = wav.data.byteLength / 2 / wav.sampleRateHz;
      record.audioMs = Math.round(durationS * 1000);
    } catch {
      return answer(400, errorBody('Invalid file format.', 'invalid_request_error'));
    }
    const text = startedIn === generation ? (script.shift() ?? '') : '';
    if (format === 'json')
      return answer(
        200,
        JSON.stringify({ text, usage: { type: 'duration', seconds: Math.ceil(durationS) } }),
      );
    const language = LANGUAGE_NAMES[record.language ?? 'en'] ?? record.language ?? 'english';
    return answer(
      200,
      JSON.stringify({
        task: 'transcribe',
        language,
        duration: durationS,
        text,
        segments:
          text === ''
            ? []
            : [
                {
                  id: 0,
                  seek: 0,
                  start: 0,
                  end: durationS,
                  text: ` ${text}`,
                  tokens: [],
                  temperature: 0,
                  avg_logprob: -0.2,
                  compression_ratio: 1.1,
                  no_speech_prob: 0.01,
                },
              ],
      }),
    );
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    say: (text) => {
      script.push(text);
    },
    reset: () => {
      generation++;
      script.length = 0;
      failures.length = 0;
    },
    failNext: (failure) => {
      failures.push(failure);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function errorBody(message: string, type: string, code: string | null = null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

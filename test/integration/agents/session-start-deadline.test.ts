// A session start that no worker takes answers 503 `provider_unavailable` within 10 s of
// its arrival even when the steps before its wait were slow: the wait ends by a deadline
// counted from the request's arrival (WAITING_ANSWER_LIMIT_MS). LiveKit's API is reached through a proxy that holds each call for
// 2.5 s (a loaded LiveKit node); no agent worker runs. Managed and application starts.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { START_UNDO_RESERVE_MS } from '../../../src/agent-sessions/session-room-start.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { WAITING_ANSWER_LIMIT_MS } from '../../../src/http/types.ts';
import { afterAll, beforeAll, describe, expect, it } from '../../fixtures/index.ts';
import {
  type ApiClient,
  type ApiReply,
  apiClient,
  LLM_ENV,
  NATIVE_VOICE,
} from '../../helpers/agents.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

/** How long the proxy holds each call to LiveKit's API. */
const LIVEKIT_DELAY_MS = 2_500;

/** An HTTP proxy to `target` that answers each request `delayMs` late. */
async function slowProxy(target: string, delayMs: number): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      setTimeout(() => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && name !== 'host' && name !== 'content-length') {
            headers.set(name, value);
          }
        }
        fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        })
          .then(async (answer) => {
            const body = Buffer.from(await answer.arrayBuffer());
            res.writeHead(answer.status, {
              'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
            });
            res.end(body);
          })
          .catch(() => res.destroy());
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('a session start whose steps before the wait are slow', () => {
  let livekit: LivekitServer;
  let proxy: Server;
  let server: RunningServer;
  let api: ApiClient;
  let agentId: string;
  let handle: DatabaseHandle;

  beforeAll(async ({ databases, apis, livekit: started }) => {
    const opened = await databases.get('sqlite');
    handle = opened.handle;
    const { database } = opened;
    const ws = await seedWorkspace(handle);
    livekit = started;
    proxy = await slowProxy(livekit.httpUrl, LIVEKIT_DELAY_MS);
    const { port } = proxy.address() as AddressInfo;
    server = await apis.start(database, {
      env: {
        ...LLM_ENV,
        LIVEKIT_URL: `ws://127.0.0.1:${port}`,
        LIVEKIT_API_KEY: livekit.apiKey,
        LIVEKIT_API_SECRET: livekit.apiSecret,
        AGENT_NAME: 'awp-deadline-test',
        AGENT_SESSION_WORKER_WAIT_MS: '8000',
      },
    });
    api = apiClient(server.url, ws.productionKey);
    const created = await api('POST', '/v1/agents', {
      slug: 'deadline',
      voice_id: NATIVE_VOICE,
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Ada', system_prompt: 'Be brief.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id as string;
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
  });

  /** The refusal a start gets, and that it came when its wait's deadline passed. */
  async function expectRefusedAtDeadline(start: () => Promise<ApiReply>) {
    const started = performance.now();
    // The room and the dispatch take 5 s through the proxy; the whole 8 s wait after them
    // would answer after 13 s.
    const reply = await start();
    const ms = performance.now() - started;
    expect(reply.status, JSON.stringify(reply.body)).toBe(503);
    expect(reply.body).toEqual({
      event: 'error',
      request_id: expect.any(String),
      code: 'provider_unavailable',
      retryable: true,
      detail:
        'No agent worker took the session in time (every worker is full, or none is running); retry later.',
    });
    // The wait ran to its deadline, 8 s after the request arrived (a few ms of clock skew
    // between the two processes' timers aside), and no longer.
    expect(ms).toBeGreaterThanOrEqual(WAITING_ANSWER_LIMIT_MS - START_UNDO_RESERVE_MS - 5);
    expect(ms).toBeLessThan(WAITING_ANSWER_LIMIT_MS);
    const stored = await handle.db
      .selectFrom('agent_sessions')
      .select(['state', 'end_reason', 'charged_millicredits'])
      .execute();
    expect(stored).toEqual([{ state: 'failed', end_reason: 'no_worker', charged_millicredits: 0 }]);
  }

  it('answers a managed start 503 provider_unavailable within the HTTP limit and undoes it', async () => {
    const minted = await api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    await expectRefusedAtDeadline(() =>
      apiClient(server.url, minted.body.token)('POST', `/v1/agents/${agentId}/sessions`, {}),
    );
  }, 60_000);

  it('answers an application start the same way', async () => {
    await handle.db.deleteFrom('agent_sessions').execute();
    await expectRefusedAtDeadline(() =>
      api('POST', `/v1/agents/${agentId}/application-sessions`, {
        agentId,
        chatSessionId: crypto.randomUUID(),
        requestId: crypto.randomUUID(),
        application: { instructions: 'You are the booking desk.' },
      }),
    );
  }, 60_000);
});

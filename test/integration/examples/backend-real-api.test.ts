// examples/backend against the real api (compiled, SQLite: the example stores nothing in
// the api's database, so one dialect says all) and a real livekit-server: the api accepts
// the example's start as sent, and the user gets the api's own session part. No agent
// worker runs here: a protocol peer joins the room the api created, as the worker would.
// Also: the example fails closed with 503 when no worker speaking protocol 2 comes, and
// passes the api's refusal on as 502 (an unpublished Agent).

import { randomUUID } from 'node:crypto';
import { RoomServiceClient } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';
import { VERSION_ATTRIBUTE, WorkerPeer } from '../backend-sdk/application/peer.ts';
import { type ExampleServer, startExample } from './example-server.ts';

describe('examples/backend against the real api', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let lk: LivekitServer;
  let server: RunningServer;
  let key: string;
  const examples: ExampleServer[] = [];
  const peers: WorkerPeer[] = [];

  const agent = async (publish: boolean) => {
    const api = apiClient(server.url, key);
    const created = await api('POST', '/v1/agents', {
      slug: `shop-${randomUUID().slice(0, 8)}`,
      voice_id: NATIVE_VOICE,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (publish)
      expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };

  const example = async (agentId: string) => {
    const running = await startExample({
      AWP_API_KEY: key,
      AWP_API_URL: server.url,
      AWP_AGENT_ID: agentId,
      EXAMPLE_AGENT_TIMEOUT_MS: '3000',
    });
    examples.push(running);
    return running;
  };

  /** Signs in as Ada and asks the example for a session. */
  const startSession = async (url: string) => {
    const signIn = await fetch(`${url}/api/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ada', password: 'demo-ada' }),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const response = await fetch(`${url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: '{}',
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(
    async ({ databases, apis, livekit }) => {
      database = await databases.empty('sqlite');
      const handle = await openTestDatabase(database);
      key = (await seedWorkspace(handle)).productionKey;
      await handle.close();
      lk = livekit;
      server = await apis.start(database, {
        env: {
          ...LLM_ENV,
          LIVEKIT_URL: lk.url,
          LIVEKIT_API_KEY: lk.apiKey,
          LIVEKIT_API_SECRET: lk.apiSecret,
          AGENT_NAME: 'awp-agent-test',
        },
      });
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    for (const running of examples) await running.stop();
    for (const peer of peers) await peer.leave().catch(() => {});
  }, 60_000);

  it("starts on the api and gives the user the api's session part once a worker joined", async () => {
    const agentId = await agent(true);
    const running = await example(agentId);
    const rooms = new RoomServiceClient(lk.httpUrl, lk.apiKey, lk.apiSecret);
    const known = new Set((await rooms.listRooms()).map((room) => room.name));
    const pending = startSession(running.url);
    // The api created the session's room: the "worker" joins it, advertising protocol 2.
    const room = await waitFor(
      async () => (await rooms.listRooms()).find((r) => !known.has(r.name))?.name,
      { what: 'the room the api created' },
    );
    peers.push(await WorkerPeer.join(lk, room, { identity: `agent-${randomUUID()}` }));
    const { status, body } = await pending;
    expect(status, JSON.stringify(body)).toBe(201);
    expect(Object.keys(body).sort()).toEqual([
      'agent_id',
      'avatar',
      'expires_at',
      'livekit',
      'room',
      'session_id',
    ]);
    expect(body.agent_id).toBe(agentId);
    expect(body.room).toBe(room);
    // The Agent's avatar, passed on as the api gave it (the same as a managed start's).
    expect(body.avatar).toEqual(
      expect.objectContaining({ id: expect.any(String), image_url: expect.any(String) }),
    );
    // The api knows it as an application session, with the backend's identity bound.
    const report = await apiClient(server.url, key)('GET', `/v1/agent-sessions/${body.session_id}`);
    expect(report.status).toBe(200);
    expect(report.body.kind).toBe('application');
    const worker = peers.at(-1) as WorkerPeer;
    const backend = await waitFor(
      () =>
        [...worker.room.remoteParticipants.values()].find(
          (p) => p.attributes[VERSION_ATTRIBUTE] === '2',
        )?.identity,
      { what: 'the example backend in the room' },
    );
    expect(backend).toBe(`app-backend-${body.session_id}`);
  });

  it('fails closed with 503 when no worker speaking protocol 2 joins', async () => {
    const running = await example(await agent(true));
    const { status, body } = await startSession(running.url);
    expect(status).toBe(503);
    expect(body.code).toBe('session_start_failed');
    expect(body.detail).toMatch(/^unsupported_worker: /);
  });

  it("passes the api's refusal on: an unpublished Agent answers 502 with the api's code", async () => {
    const running = await example(await agent(false));
    const { status, body } = await startSession(running.url);
    expect(status).toBe(502);
    expect(body.code).toBe('session_start_failed');
    expect(body.detail).toMatch(/^agent_not_published: /);
  });
});

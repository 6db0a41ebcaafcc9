// A local stand-in for the api's application-session start, for the example backend's
// test: `POST /v1/agents/{agentId}/application-sessions` checked against the api's own
// request schema (src/application/schemas.ts), answered with real LiveKit credentials for a
// fresh room, into which the test's Agent participant joins first (as the api's dispatch
// makes the real worker do). Everything it received is recorded for assertions.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessToken } from 'livekit-server-sdk';
import {
  type ApplicationStartBody,
  type ApplicationStarted,
  applicationStartSchema,
} from '../../../src/application/schemas.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { mintControl } from '../backend-sdk/application/peer.ts';

/** The participant the stand-in puts in each new room, as the api's dispatch does. */
export interface AgentHandle {
  leave(): Promise<void>;
}

/** One start the stand-in answered. */
export interface RecordedStart<Agent extends AgentHandle> {
  authorization: string | undefined;
  body: ApplicationStartBody;
  answer: ApplicationStarted;
  agent: Agent;
}

export interface ApiStandIn<Agent extends AgentHandle> {
  url: string;
  starts: RecordedStart<Agent>[];
  /** Requests refused (bad key or a body the real api would refuse), with the reason. */
  refused: { status: number; code: string; detail: string }[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the stand-in on 127.0.0.1 with the one workspace key it accepts; `joinAgent` puts
 * the Agent's participant into each new room before the start answers.
 *
 * @example
 * ```ts
 * const api = await startApiStandIn(livekit, 'awp_test_key', (session) =>
 *   WorkerPeer.join(livekit, session.room, { identity: `agent-${session.session_id}` }),
 * );
 * ```
 */
export async function startApiStandIn<Agent extends AgentHandle>(
  lk: LivekitServer,
  apiKey: string,
  joinAgent: (session: ApplicationStarted['session']) => Promise<Agent>,
): Promise<ApiStandIn<Agent>> {
  const starts: RecordedStart<Agent>[] = [];
  const refused: ApiStandIn<Agent>['refused'] = [];
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const refuse = (status: number, code: string, detail: string) => {
      refused.push({ status, code, detail });
      reply(status, { code, detail, request_id: randomUUID(), retryable: false });
    };
    void (async () => {
      const match = /^\/v1\/agents\/([^/]+)\/application-sessions$/.exec(request.url ?? '');
      if (request.method !== 'POST' || !match) return refuse(404, 'not_found', 'no such route');
      if (request.headers.authorization !== `Bearer ${apiKey}`) {
        return refuse(401, 'unauthorized', 'a workspace key is required');
      }
      const parsed = applicationStartSchema.safeParse(JSON.parse(await readBody(request)));
      if (!parsed.success) return refuse(400, 'invalid_request', parsed.error.message);
      if (parsed.data.agentId !== decodeURIComponent(match[1] ?? '')) {
        return refuse(400, 'invalid_request', 'agentId differs from the path');
      }
      // Idempotent as the api: the same chatSessionId and requestId are the same session,
      // answered with fresh credentials (how a backend rejoins) and no second Agent.
      const key = `${parsed.data.chatSessionId}/${parsed.data.requestId}`;
      const earlier = starts.find(
        (start) => `${start.body.chatSessionId}/${start.body.requestId}` === key,
      );
      const sessionId = earlier?.answer.session.session_id ?? randomUUID();
      const room = `awp-${sessionId}`;
      const control = await mintControl(lk, room, `app-backend-${sessionId}`);
      const user = new AccessToken(lk.apiKey, lk.apiSecret, { identity: `user-${sessionId}` });
      user.addGrant({
        roomJoin: true,
        room,
        canPublish: true,
        canSubscribe: true,
        canPublishData: true,
      });
      const answer: ApplicationStarted = {
        control,
        session: {
          session_id: sessionId,
          agent_id: parsed.data.agentId,
          livekit: { url: lk.url, token: await user.toJwt() },
          room,
          avatar: { id: 'avatar_ada', name: 'Ada', image_url: '/v1/avatars/avatar_ada/preview' },
          expires_at: new Date(Date.now() + 60 * 60_000).toISOString(),
        },
      };
      const agent = earlier?.agent ?? (await joinAgent(answer.session));
      starts.push({
        authorization: request.headers.authorization,
        body: parsed.data,
        answer,
        agent,
      });
      reply(201, answer);
    })().catch((error: unknown) => refuse(500, 'internal_error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    starts,
    refused,
    close: async () => {
      await Promise.all(starts.map((start) => start.agent.leave().catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

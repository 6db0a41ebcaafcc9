// A tiny HTTP stand-in for the api's session start (docs/agent-protocol.md, "Starting a
// session"), for library tests against a protocol peer: it mints real LiveKit tokens with
// livekit-server-sdk, records every request, and serves the test page with the SDK's browser
// bundle. Tokens are opaque strings it issued itself; each starts one session.

import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AccessToken, TrackSource } from 'livekit-server-sdk';
import type { LivekitServer } from '../../../helpers/livekit.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
export const BUNDLE = path.join(ROOT, 'client-sdk/dist/browser/awp-client.js');

/** One recorded `POST /v1/agents/{agentId}/sessions`. */
export interface RecordedStart {
  agentId: string;
  authorization: string | undefined;
  body: unknown;
  status: number;
}

/** A session the stub started. */
export interface StubSession {
  sessionId: string;
  agentId: string;
  room: string;
  userIdentity: string;
}

export interface SessionStub {
  origin: string;
  starts: RecordedStart[];
  /** Why each request the stub answered with 500 failed (its error's stack), in order. */
  failures: string[];
  /** How many tokens the page asked for (`POST /test/token`). */
  tokenCalls(): number;
  /** Called for each started session (the test joins its protocol peer here). */
  onSession(handler: (session: StubSession) => Promise<void> | void): void;
  /**
   * Plays the page's own backend for application sessions: `POST /test/application-session`
   * with `{agentId}` answers whatever the handler returns (status 200, JSON).
   */
  onApplicationStart(handler: (agentId: string) => Promise<unknown>): void;
  close(): Promise<void>;
}

// The test page: the SDK bundle on `window.awp`, every event of a client recorded in order.
export const TEST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>client-sdk test</title>
<script type="module">
import * as awp from '/awp-client.js';
window.awp = awp;
window.events = [];
window.record = (client) => {
  const names = ['connectionState', 'session', 'transcriptProgress', 'transcript', 'declined',
    'agentSpeaking', 'remoteAudioTrack', 'error'];
  return names.map((name) => client.on(name, (payload) => {
    let value = payload;
    if (name === 'remoteAudioTrack') value = { kind: payload.track.kind, readyState: payload.track.readyState };
    if (name === 'error') value = { code: payload.code, message: payload.message, retryable: payload.retryable };
    window.events.push({ name, payload: value });
  }));
};
window.freshToken = async () => (await fetch('/test/token', { method: 'POST' })).json();
window.ready = true;
</script></head><body></body></html>`;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** An extra page or script the stub serves (same origin as the session start). */
export interface StubFile {
  type: string;
  body: string | Buffer;
}

/**
 * Starts the stub on 127.0.0.1; `livekit` is needed only by tests that connect for real.
 * `files` adds GET routes by path (another test page and its bundle).
 */
export async function startSessionStub(
  livekit?: LivekitServer,
  files: Record<string, StubFile> = {},
): Promise<SessionStub> {
  const issued = new Set<string>();
  const used = new Set<string>();
  const starts: RecordedStart[] = [];
  const failures: string[] = [];
  let tokenCalls = 0;
  let sessionHandler: (session: StubSession) => Promise<void> | void = () => undefined;
  let applicationHandler: ((agentId: string) => Promise<unknown>) | undefined;

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      if (req.method === 'GET' && url.pathname === '/')
        return send(res, 200, 'text/html', TEST_PAGE);
      const file = req.method === 'GET' ? files[url.pathname] : undefined;
      if (file) return send(res, 200, file.type, file.body);
      if (req.method === 'GET' && url.pathname === '/awp-client.js') {
        return send(res, 200, 'text/javascript', readFileSync(BUNDLE));
      }
      if (req.method === 'POST' && url.pathname === '/test/token') {
        tokenCalls++;
        const token = `stub_${randomBytes(12).toString('hex')}`;
        issued.add(token);
        const expiresAt = new Date(Date.now() + 15 * 60_000).toISOString();
        return send(res, 200, 'application/json', JSON.stringify({ token, expires_at: expiresAt }));
      }
      if (req.method === 'POST' && url.pathname === '/test/application-session') {
        const { agentId } = JSON.parse(await readBody(req)) as { agentId: string };
        if (!applicationHandler) return send(res, 404, 'text/plain', 'no application backend');
        return send(
          res,
          200,
          'application/json',
          JSON.stringify(await applicationHandler(agentId)),
        );
      }
      const match = /^\/v1\/agents\/([^/]+)\/sessions$/.exec(url.pathname);
      if (req.method === 'POST' && match) {
        const agentId = decodeURIComponent(match[1]!);
        const text = await readBody(req);
        const authorization = req.headers.authorization;
        const token = authorization?.replace(/^Bearer /, '') ?? '';
        const record: RecordedStart = {
          agentId,
          authorization,
          body: text ? JSON.parse(text) : undefined,
          status: 0,
        };
        starts.push(record);
        if (!issued.has(token) || used.has(token) || !livekit) {
          record.status = 401;
          return send(
            res,
            401,
            'application/json',
            JSON.stringify({
              event: 'error',
              request_id: randomUUID(),
              code: 'unauthorized',
              retryable: false,
              detail: 'Invalid or expired Agent session token.',
            }),
          );
        }
        used.add(token);
        const sessionId = randomUUID();
        const session: StubSession = {
          sessionId,
          agentId,
          room: `awp-${sessionId}`,
          userIdentity: `user-${sessionId}`,
        };
        const userName = (record.body as { sessionContext?: { userName?: string } })?.sessionContext
          ?.userName;
        const access = new AccessToken(livekit.apiKey, livekit.apiSecret, {
          identity: session.userIdentity,
          ...(userName ? { name: userName } : {}),
          ttl: '15m',
        });
        access.addGrant({
          roomJoin: true,
          room: session.room,
          canPublish: true,
          canPublishSources: [TrackSource.MICROPHONE],
          canPublishData: true,
          canSubscribe: true,
        });
        await sessionHandler(session);
        record.status = 201;
        return send(
          res,
          201,
          'application/json',
          JSON.stringify({
            session_id: sessionId,
            agent_id: agentId,
            room: session.room,
            livekit: { url: livekit.url, token: await access.toJwt() },
            avatar: { id: 'avatar_ada', name: 'Ada', image_url: '/avatar.png' },
            expires_at: new Date(Date.now() + 3600_000).toISOString(),
          }),
        );
      }
      send(res, 404, 'text/plain', 'not found');
    })().catch((error: unknown) => {
      // The client reports only the status: the cause goes to the test's output.
      console.error('session stub: starting a session failed:', error);
      failures.push(
        `${req.method} ${req.url}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      send(res, 500, 'text/plain', String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    starts,
    failures,
    tokenCalls: () => tokenCalls,
    onSession: (handler) => {
      sessionHandler = handler;
    },
    onApplicationStart: (handler) => {
      applicationHandler = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

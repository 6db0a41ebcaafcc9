// examples/backend as a user and the worker see it: the example server runs as a child
// process (as `npm run example:backend` runs it) against a local stand-in of the api's
// application-session start (api-stand-in.ts: the api's own request schema, real LiveKit
// credentials) and a real livekit-server, where a protocol peer plays the worker.
//
// Covered: the page and its client-sdk bundle; the demo sign-in refusing missing, wrong and
// forged credentials; a signed-in user's start answering only the `session` part while the
// backend joined with `control`; the start request (key, Agent, the two tools); and each
// handler over the real wire: the hand-off phrase, input passed to the model with the
// orders, both tools, progress of the dispatch, its cancellation, the spoken update it
// requests once with onPrepareReply's instructions, transcripts stored idempotently, and
// the rejoin with the same start ids after the backend's connection drops.
// Not covered here: the real worker and voice (the app-worker end-to-end tests).

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '../../fixtures/index.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { waitFor } from '../../helpers/wait.ts';
import { kick, VERSION_ATTRIBUTE, WorkerPeer } from '../backend-sdk/application/peer.ts';
import { type ApiStandIn, type RecordedStart, startApiStandIn } from './api-stand-in.ts';
import { type ExampleServer, startExample } from './example-server.ts';

const API_KEY = `awp_${randomUUID().replace(/-/g, '')}`;
const AGENT_ID = randomUUID();
const HANDOFF_TEXT =
  'Of course. I have asked a member of our team to call you back within the hour.';

let lk: LivekitServer;
let api: ApiStandIn<WorkerPeer>;
let example: ExampleServer;

beforeAll(async ({ livekit }) => {
  lk = livekit;
  // The api dispatches the worker when it starts a session: a protocol peer joins first.
  api = await startApiStandIn(lk, API_KEY, (session) =>
    WorkerPeer.join(lk, session.room, { identity: `agent-${session.session_id}` }),
  );
  example = await startExample({
    AWP_API_KEY: API_KEY,
    AWP_API_URL: api.url,
    AWP_AGENT_ID: AGENT_ID,
    EXAMPLE_DISPATCH_MS: '3000',
  });
});

afterAll(async () => {
  await example?.stop();
  await api?.close();
});

/** A request to the example; `cookie` is the signed-in session, when given. */
async function call(
  method: string,
  path: string,
  options: { body?: unknown; cookie?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  const response = await fetch(`${example.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON fields.
  return { status: response.status, headers: response.headers, text, body: body as any };
}

async function signIn(username: string, password: string): Promise<string> {
  const response = await call('POST', '/api/sign-in', { body: { username, password } });
  expect(response.status, response.text).toBe(200);
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/);
  return cookie.split(';')[0] ?? '';
}

/** Signs in, starts a session through the example and returns it with the stand-in's record. */
async function startFor(username: string, password: string) {
  const cookie = await signIn(username, password);
  const before = api.starts.length;
  const response = await call('POST', '/api/session', { body: {}, cookie });
  expect(response.status, response.text).toBe(201);
  expect(api.starts.length).toBe(before + 1);
  const start = api.starts[before] as RecordedStart<WorkerPeer>;
  return { cookie, response, start, worker: start.agent, backend: start.answer.control.identity };
}

/** Sends a tool call as the worker does; returns its requestId. */
function tool(worker: WorkerPeer, backend: string, name: string, args: unknown) {
  return worker.request(backend, 'tool', {
    tool: { callId: randomUUID(), name, arguments: args },
  });
}

describe('examples/backend', () => {
  it('serves its page with the client-sdk bundle', async () => {
    const page = await call('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script type="module" src="/app.js"></script>');
    const script = await call('GET', '/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // The page's own endpoint and the client library's refusal of a control part, bundled.
    expect(script.text).toContain('/api/session');
    expect(script.text).toContain('keep `control` on your backend');
  });

  it('refuses the session endpoint without a valid sign-in and starts nothing', async () => {
    const none = await call('POST', '/api/session', { body: {} });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: 'unauthorized', detail: 'sign in first' });

    const wrong = await call('POST', '/api/sign-in', {
      body: { username: 'ada', password: 'not-her-password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_credentials');
    expect(wrong.headers.get('set-cookie')).toBeNull();

    // Ada's signed cookie with the user id changed to Grace's: the signature no longer fits.
    const ada = await signIn('ada', 'demo-ada');
    const forged = ada.replace('=ada.', '=grace.');
    expect(forged).not.toBe(ada);
    const refused = await call('POST', '/api/session', { body: {}, cookie: forged });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthorized');
    expect((await call('GET', '/api/me', { cookie: forged })).status).toBe(401);
    expect(api.starts).toHaveLength(0);
    expect(api.refused).toHaveLength(0);
  });

  it('gives a signed-in user the session part only, after joining with the control part', async () => {
    const { response, start, worker, backend } = await startFor('ada', 'demo-ada');
    expect(response.body).toEqual(start.answer.session);
    expect(Object.keys(response.body).sort()).toEqual(
      ['agent_id', 'avatar', 'expires_at', 'livekit', 'room', 'session_id'].sort(),
    );
    expect(response.text).not.toContain(start.answer.control.token);
    expect(response.headers.get('cache-control')).toBe('no-store');

    // The start: the workspace key, the Agent from the environment, the two tools.
    expect(start.authorization).toBe(`Bearer ${API_KEY}`);
    expect(start.body.agentId).toBe(AGENT_ID);
    expect(start.body.application.instructions).toContain('speaking with Ada');
    const tools = start.body.application.tools.map((t) => ({
      name: t.name,
      cancellable: t.cancellable,
      runReply: t.runReply,
    }));
    expect(tools).toEqual([
      { name: 'lookup_order', cancellable: false, runReply: true },
      { name: 'dispatch_courier', cancellable: true, runReply: false },
    ]);
    // The backend joined the room with the control part and advertises protocol 2.
    const version = await waitFor(() => worker.attributesOf(backend)?.[VERSION_ATTRIBUTE], {
      what: 'the example backend advertising the protocol version',
    });
    expect(version).toBe('2');
  });

  it('answers input, lookup_order and transcript callbacks with the shop logic', async () => {
    const { cookie, worker, backend } = await startFor('ada', 'demo-ada');
    const human = await worker.request(backend, 'input', {
      input: { id: 'm1', text: 'Can I talk to a human please?', modality: 'audio' },
    });
    const normal = await worker.request(backend, 'input', {
      input: { id: 'm2', text: 'Where is my coffee?', modality: 'text' },
    });
    expect((await worker.waitResults(human))[0]?.body).toEqual({
      requestId: human,
      type: 'result',
      value: { action: 'reply', text: HANDOFF_TEXT },
    });
    expect((await worker.waitResults(normal))[0]?.body).toEqual({
      requestId: normal,
      type: 'result',
      value: {
        action: 'reply',
        text: 'Where is my coffee?',
        instructions: 'Answer Ada. Current orders: A-1001: packed; A-1002: delivered.',
      },
    });

    const own = await tool(worker, backend, 'lookup_order', { orderId: 'a-1001' });
    const others = await tool(worker, backend, 'lookup_order', { orderId: 'G-2001' });
    expect((await worker.waitResults(own))[0]?.body).toEqual({
      requestId: own,
      type: 'result',
      value: {
        found: true,
        order: {
          orderId: 'A-1001',
          items: ['2 x espresso beans 1 kg', '1 x milk frother'],
          totalEur: 64.5,
          status: 'packed',
          address: '12 Analytical Street',
          courier: null,
        },
      },
    });
    // Grace's order does not exist for Ada.
    expect((await worker.waitResults(others))[0]?.body.value).toEqual({
      found: false,
      orderId: 'G-2001',
    });

    // The same line delivered twice (a re-delivery after a rejoin) is stored once.
    const line = { id: 'line-1', role: 'user', text: 'Where is my coffee?', interrupted: false };
    const first = await worker.request(backend, 'transcript', { transcript: line });
    const again = await worker.request(backend, 'transcript', { transcript: line });
    const agent = await worker.request(backend, 'transcript', {
      transcript: { id: 'line-2', role: 'agent', text: 'It is packed.', interrupted: true },
    });
    for (const id of [first, again, agent]) {
      expect((await worker.waitResults(id))[0]?.body).toEqual({
        requestId: id,
        type: 'result',
        value: null,
      });
    }
    const view = await call('GET', '/api/conversation', { cookie });
    expect(view.status).toBe(200);
    expect(view.body.transcript).toEqual([
      line,
      { id: 'line-2', role: 'agent', text: 'It is packed.', interrupted: true },
    ]);
    expect(view.body.handoffRequested).toBe(true);
  });

  it('dispatches a courier with progress, then requests one spoken update with prepared instructions', async () => {
    const { cookie, worker, backend } = await startFor('ada', 'demo-ada');
    const dispatch = await tool(worker, backend, 'dispatch_courier', { orderId: 'A-1001' });
    const results = await worker.waitResults(dispatch, 3);
    const [searching, assigned, done] = results.map((r) => r.body);
    expect(searching).toEqual({
      requestId: dispatch,
      type: 'progress',
      value: { stage: 'searching_courier', orderId: 'A-1001' },
    });
    expect(assigned).toMatchObject({ type: 'progress', value: { stage: 'courier_assigned' } });
    const courier = (assigned?.value as { courier: string } | undefined)?.courier;
    expect(done).toMatchObject({
      requestId: dispatch,
      type: 'result',
      value: { dispatched: true, orderId: 'A-1001', courier },
    });
    const etaMinutes = (done?.value as { etaMinutes: number } | undefined)?.etaMinutes;

    // After the result, one request_reply without instructions: the worker asks for them.
    const command = await worker.waitCommand('request_reply');
    expect(command.body).toEqual({
      requestId: command.body.requestId,
      command: 'request_reply',
      id: expect.stringMatching(/^dispatch-A-1001-/),
    });
    const updateId = command.body.id as string;
    const prepare = await worker.request(backend, 'prepare_reply', {
      prepareReply: { id: updateId },
    });
    expect((await worker.waitResults(prepare))[0]?.body.value).toEqual({
      instructions: `In one short sentence, tell Ada that courier ${courier} has order A-1001 and will arrive in about ${etaMinutes} minutes.`,
    });
    const spokenText = `${courier} has your order.`;
    await worker.commandResult(backend, {
      requestId: command.body.requestId as string,
      type: 'result',
      value: { id: updateId, interrupted: false, spokenText, completion: 'worker_playout' },
    });
    const view = await waitFor(
      async () => {
        const answer = await call('GET', '/api/conversation', { cookie });
        return answer.body.announcements?.[0]?.status === 'spoken' && answer.body;
      },
      { what: 'the spoken update to be recorded' },
    );
    expect(view.announcements).toEqual([
      { id: updateId, orderId: 'A-1001', status: 'spoken', spokenText },
    ]);
    expect(worker.received.filter((r) => r.body.command === 'request_reply')).toHaveLength(1);

    // The order moved on: a lookup now reports the courier.
    const lookup = await tool(worker, backend, 'lookup_order', { orderId: 'A-1001' });
    expect((await worker.waitResults(lookup))[0]?.body.value).toMatchObject({
      order: { status: 'out_for_delivery', courier: { name: courier, etaMinutes } },
    });
  });

  it('rejoins with the same start ids after its connection drops, and answers callbacks again', async () => {
    const { cookie, start, worker, backend } = await startFor('grace', 'demo-grace');
    const before = api.starts.length;
    const firstSid = await waitFor(() => worker.room.remoteParticipants.get(backend)?.sid, {
      what: 'the backend in the room',
    });
    await kick(lk, start.answer.session.room, backend);
    // The example starts again with the same ids for a fresh control and joins again.
    const again = await waitFor(() => api.starts[before], { what: 'the start made to rejoin' });
    expect(again.body.chatSessionId).toBe(start.body.chatSessionId);
    expect(again.body.requestId).toBe(start.body.requestId);
    expect(again.answer.session.session_id).toBe(start.answer.session.session_id);
    // Back in the room: a new participant under the same identity, advertising protocol 2.
    await waitFor(
      () => {
        const participant = worker.room.remoteParticipants.get(backend);
        return (
          participant !== undefined &&
          participant.sid !== firstSid &&
          participant.attributes[VERSION_ATTRIBUTE] === '2'
        );
      },
      { what: 'the backend back in the room' },
    );
    const lookup = await tool(worker, backend, 'lookup_order', { orderId: 'G-2001' });
    expect((await worker.waitResults(lookup))[0]?.body.value).toMatchObject({
      found: true,
      order: { orderId: 'G-2001' },
    });
    expect((await call('GET', '/api/conversation', { cookie })).body.connected).toBe(true);
  });

  it('stops a cancelled dispatch: nothing more is sent and the order stays packed', async () => {
    const { worker, backend } = await startFor('grace', 'demo-grace');
    const cancelled = await tool(worker, backend, 'dispatch_courier', { orderId: 'G-2001' });
    await worker.waitResults(cancelled, 1);
    await worker.cancel(backend, cancelled, 'interrupted');
    // A second dispatch of the same order starts later and lasts as long: once it finished,
    // the cancelled one would have finished too. It runs because the order is still packed.
    const second = await tool(worker, backend, 'dispatch_courier', { orderId: 'G-2001' });
    const secondResults = await worker.waitResults(second, 3);
    expect(secondResults[2]?.body.value).toMatchObject({ dispatched: true, orderId: 'G-2001' });
    const sent = worker.results(cancelled).map((r) => r.body.type);
    expect(sent[0]).toBe('progress');
    expect(sent).not.toContain('result');
    expect(sent).not.toContain('error');
  });
});

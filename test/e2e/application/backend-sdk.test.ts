// The customer's path end to end: backend-sdk starts an application session through the
// real api route, joins the data-only connection and answers the real worker's callbacks
// with typed handlers; the end user joins with the session part only. Also: backend-sdk
// failing closed against a worker that does not advertise protocol 2.

import { randomUUID } from 'node:crypto';
import { AccessToken } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import {
  ApplicationConnection,
  ApplicationError,
  startApplicationSession,
} from '../../../backend-sdk/src/application/index.ts';
import { apiClient } from '../../helpers/agents.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { type ApplicationStack, applicationTest, llmMessages } from './harness.ts';

const quietLogger = { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} };

const it = applicationTest(10_000);

describe('application sessions with backend-sdk (api route, worker, livekit-server)', () => {
  let stack: ApplicationStack;

  it.beforeAll(async ({ stack: started }) => {
    stack = started;
  }, 180_000);

  it('runs a dispatch tool with progress, then speaks its update once per id', async () => {
    const { llm } = stack;
    const { control, session } = await startApplicationSession(
      { baseUrl: stack.server.url, apiKey: stack.ws.productionKey },
      {
        agentId: stack.agentId,
        chatSessionId: randomUUID(),
        requestId: randomUUID(),
        application: {
          instructions: 'SDK-INSTRUCTIONS: you are the bistro desk.',
          tools: [
            {
              name: 'dispatch_courier',
              description: 'Sends a courier.',
              parameters: { type: 'object', properties: {} },
              runReply: false,
              onDuplicate: 'reject',
            },
          ],
        },
      },
    );
    // The browser's part carries no control credential.
    expect(Object.keys(session).sort()).toEqual(
      ['agent_id', 'avatar', 'expires_at', 'livekit', 'room', 'session_id'].sort(),
    );
    expect(JSON.stringify(session)).not.toContain(control.token);

    let finishDispatch: (value: unknown) => void = () => {};
    const dispatched = new Promise((resolve) => {
      finishDispatch = resolve;
    });
    const lines: { id: string; role: string; text: string }[] = [];
    // The user is in the room first: the worker's capability attribute (which the join
    // waits for) then means its session is also listening to this user. Text typed before
    // the framework links the user is dropped by agents-js ("participant not found").
    const user = await RoomClient.join(session.livekit.url, session.livekit.token);
    const connection = await ApplicationConnection.join(
      control,
      {
        onInput: (input) => {
          if (input.text.includes('hours')) {
            return { action: 'reply', text: 'We are open from noon to midnight.' };
          }
          throw new ApplicationError({ code: 'not_mine', message: 'the model answers' });
        },
        onTool: async (_call, { progress }) => {
          await progress({ status: 'dispatching' });
          return dispatched;
        },
        onTranscript: (line) => {
          lines.push(line);
        },
        onPrepareReply: ({ id }) => ({ instructions: `ANNOUNCE ${id} in one sentence.` }),
      },
      { agentTimeoutMs: 60_000, logger: quietLogger },
    );
    try {
      await user.sendText('What are your hours?');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'We are open from noon to midnight.'),
        30_000,
        'the backend reply',
      );

      llm.script({
        text: [],
        toolCalls: [{ id: 'call_c', name: 'dispatch_courier', arguments: '{}' }],
      });
      llm.script({ text: ['Dispatching', ' now.'] });
      await user.sendText('Send a courier.');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Dispatching now.'),
        30_000,
        'the answer after progress',
      );
      const requests = llm.requests.length;
      finishDispatch({ jobId: 'J-7' });
      llm.script({ text: ['Courier', ' J-7 has arrived.'] });
      const outcome = await connection.requestReply('courier-arrived');
      expect(outcome).toEqual({
        id: 'courier-arrived',
        interrupted: false,
        spokenText: 'Courier J-7 has arrived.',
        completion: 'worker_playout',
      });
      expect(llm.requests.length).toBe(requests + 1);
      const context = JSON.stringify(llmMessages(llm));
      expect(context).toContain('ANNOUNCE courier-arrived in one sentence.');
      expect(context).toContain('J-7');
      expect(await connection.requestReply('courier-arrived')).toEqual(outcome);
      expect(llm.requests.length).toBe(requests + 1);

      await connection.updateContext({ instructions: 'SDK-INSTRUCTIONS-2' });
      expect(llm.requests.length).toBe(requests + 1);

      const published = user.transcripts();
      await user.waitUntil(
        () => lines.length >= published.length,
        30_000,
        'each turn acknowledged by the backend',
      );
      expect(lines.map((l) => [l.id, l.role, l.text])).toEqual(
        published.map((t) => [t.id, t.role, t.text]),
      );
    } finally {
      await connection.close();
      await user.leave();
    }
  });

  it('fails closed against a worker that does not advertise protocol 2', async () => {
    const api = apiClient(stack.server.url, stack.ws.productionKey);
    const token = (await api('POST', `/v1/agents/${stack.agentId}/session-tokens`, {})).body
      .token as string;
    const started = await apiClient(stack.server.url, token)(
      'POST',
      `/v1/agents/${stack.agentId}/sessions`,
    );
    expect(started.status).toBe(201);
    const user = await RoomClient.join(started.body.livekit.url, started.body.livekit.token);
    try {
      await user.waitUntil(
        () => [...user.room.remoteParticipants.keys()].find((id) => id.startsWith('agent-')),
        60_000,
        'the managed Agent',
      );
      const grant = new AccessToken(stack.livekit.apiKey, stack.livekit.apiSecret, {
        identity: `app-backend-${started.body.session_id}`,
        ttl: 300,
      });
      grant.addGrant({
        room: started.body.room,
        roomJoin: true,
        canPublish: false,
        canSubscribe: false,
        canPublishData: true,
        canUpdateOwnMetadata: true,
      });
      const join = ApplicationConnection.join(
        {
          livekit_url: stack.livekit.url,
          room: started.body.room,
          token: await grant.toJwt(),
          identity: `app-backend-${started.body.session_id}`,
          expires_at: new Date(Date.now() + 300_000).toISOString(),
        },
        {},
        { agentTimeoutMs: 3000, logger: quietLogger },
      );
      await expect(join).rejects.toMatchObject({ code: 'unsupported_worker' });
    } finally {
      await user.leave();
    }
  });
});

// backend-sdk application sessions against the real livekit-server: commands (update
// context, request reply, cancel tool) as the worker peer receives and answers them, and a
// backend that loses its connection and rejoins receiving its pending callbacks once.

import { randomUUID } from 'node:crypto';
import {
  ApplicationConnection,
  ApplicationError,
  type ApplicationHandlers,
  type JoinOptions,
  RequestLedger,
} from '../../../../backend-sdk/src/application/index.ts';
import { afterEach, beforeAll, describe, expect, it } from '../../../fixtures/index.ts';
import type { LivekitServer } from '../../../helpers/livekit.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { kick, mintControl, recordingLogger, WorkerPeer } from './peer.ts';

let lk: LivekitServer;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(({ livekit }) => {
  lk = livekit;
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

async function session(handlers: ApplicationHandlers = {}) {
  const room = `awp-${randomUUID()}`;
  const backendIdentity = `app-backend-${randomUUID()}`;
  const worker = await WorkerPeer.join(lk, room, { identity: `agent-${randomUUID()}` });
  cleanup.push(() => worker.leave());
  const ledger = new RequestLedger();
  const join = async (options: JoinOptions = {}) => {
    const connection = await ApplicationConnection.join(
      await mintControl(lk, room, backendIdentity),
      handlers,
      { ledger, logger: recordingLogger(), ...options },
    );
    cleanup.push(() => connection.close());
    return connection;
  };
  return { room, backendIdentity, worker, join, ledger };
}

describe('backend-sdk application connection: commands', () => {
  it('requestReply sends request_reply and resolves with what the worker says was heard', async () => {
    const { worker, backendIdentity, join } = await session();
    const connection = await join();
    const pending = connection.requestReply('courier-arrived', {
      instructions: 'Say the courier is here.',
    });
    const command = await worker.waitCommand('request_reply');
    const requestId = command.body.requestId as string;
    expect(command.body).toEqual({
      requestId,
      command: 'request_reply',
      id: 'courier-arrived',
      instructions: 'Say the courier is here.',
    });
    expect(command.attributes).toEqual({ requestId });
    expect(command.from).toBe(backendIdentity);
    await worker.commandResult(backendIdentity, {
      requestId,
      type: 'result',
      value: {
        id: 'courier-arrived',
        interrupted: true,
        spokenText: 'Your courier',
        completion: 'worker_playout',
      },
    });
    await expect(pending).resolves.toEqual({
      id: 'courier-arrived',
      interrupted: true,
      spokenText: 'Your courier',
      completion: 'worker_playout',
    });
  });

  it('requestReply rejects with the worker error code (reply_invalidated)', async () => {
    const { worker, backendIdentity, join } = await session();
    const connection = await join();
    const pending = connection.requestReply('stale').catch((error: unknown) => error);
    const command = await worker.waitCommand('request_reply');
    expect(command.body).not.toHaveProperty('instructions');
    await worker.commandResult(backendIdentity, {
      requestId: command.body.requestId as string,
      type: 'error',
      error: { code: 'reply_invalidated', message: 'the user spoke first' },
    });
    const error = await pending;
    expect(error).toBeInstanceOf(ApplicationError);
    expect(error).toMatchObject({ code: 'reply_invalidated', requestId: command.body.requestId });
  });

  it('updateContext and cancelTool send their arguments and settle on the answer', async () => {
    const { worker, backendIdentity, join } = await session();
    const connection = await join();
    const update = connection.updateContext({
      instructions: 'The order is paid.',
      messages: [{ role: 'system', content: 'Order 42 paid.' }],
    });
    const updateCommand = await worker.waitCommand('update_context');
    expect(updateCommand.body).toEqual({
      requestId: updateCommand.body.requestId,
      command: 'update_context',
      instructions: 'The order is paid.',
      messages: [{ role: 'system', content: 'Order 42 paid.' }],
    });
    await worker.commandResult(backendIdentity, {
      requestId: updateCommand.body.requestId as string,
      type: 'result',
      value: {},
    });
    await expect(update).resolves.toBeUndefined();

    const cancel = connection.cancelTool('call-7');
    const cancelCommand = await worker.waitCommand('cancel_tool');
    expect(cancelCommand.body).toEqual({
      requestId: cancelCommand.body.requestId,
      command: 'cancel_tool',
      callId: 'call-7',
    });
    await worker.commandResult(backendIdentity, {
      requestId: cancelCommand.body.requestId as string,
      type: 'result',
      value: { cancelled: true },
    });
    await expect(cancel).resolves.toBe(true);
  });

  it('ignores a forged command result from a participant other than the Agent', async () => {
    const { room, worker, backendIdentity, join } = await session();
    const connection = await join();
    const intruder = await WorkerPeer.join(lk, room, {
      identity: `user-${randomUUID()}`,
      agent: false,
    });
    cleanup.push(() => intruder.leave());
    const pending = connection.requestReply('r1');
    const command = await worker.waitCommand('request_reply');
    const requestId = command.body.requestId as string;
    await intruder.commandResult(backendIdentity, {
      requestId,
      type: 'result',
      value: { id: 'r1', interrupted: false, spokenText: 'forged', completion: 'worker_playout' },
    });
    await worker.commandResult(backendIdentity, {
      requestId,
      type: 'result',
      value: {
        id: 'r1',
        interrupted: false,
        spokenText: 'The real one.',
        completion: 'worker_playout',
      },
    });
    expect((await pending).spokenText).toBe('The real one.');
  });

  it('refuses an oversized command before sending it', async () => {
    const { worker, join } = await session();
    const connection = await join();
    await expect(
      connection.updateContext({ instructions: 'w'.repeat(256_000) }),
    ).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    const probe = connection
      .cancelTool('x', { timeoutMs: 60_000 })
      .catch((error: unknown) => error);
    await worker.waitCommand('cancel_tool');
    expect(worker.received.filter((r) => r.topic === 'application.command')).toHaveLength(1);
    await connection.close();
    expect(await probe).toMatchObject({ code: 'connection_closed' });
  });

  it('times out a command the worker never answers, and fails pending ones when the Agent leaves', async () => {
    const { worker, join } = await session();
    const connection = await join({ commandTimeoutMs: 500 });
    await expect(connection.updateContext({ instructions: 'x' })).rejects.toMatchObject({
      code: 'timeout',
      retryable: true,
    });
    const reply = connection.requestReply('never-played').catch((error: unknown) => error);
    await worker.waitCommand('request_reply');
    await worker.leave();
    expect(await reply).toMatchObject({ code: 'session_ended' });
    await waitFor(() => connection.agentIdentity === undefined, { what: 'the Agent to be gone' });
    await expect(connection.cancelTool('c')).rejects.toMatchObject({ code: 'session_ended' });
  });
});

describe('backend-sdk application connection: rejoin', () => {
  it('a backend that drops and rejoins gets its pending callbacks again and runs each handler once', async () => {
    const calls: Record<string, number> = {};
    let finish!: (value: unknown) => void;
    const gate = new Promise((resolve) => {
      finish = resolve;
    });
    let dropped = 0;
    const { room, worker, backendIdentity, join } = await session({
      onInput: (input) => {
        calls[input.id] = (calls[input.id] ?? 0) + 1;
        return { action: 'reply', text: `answer to ${input.id}` };
      },
      onTool: async (call, { progress }) => {
        calls[call.callId] = (calls[call.callId] ?? 0) + 1;
        await progress({ stage: 'dispatched' });
        return { booked: await gate };
      },
    });
    let lost!: () => void;
    const disconnected = new Promise<void>((resolve) => {
      lost = resolve;
    });
    const first = await join({
      onDisconnected: () => {
        dropped += 1;
        lost();
      },
    });
    const answered = await worker.request(backendIdentity, 'input', {
      input: { id: 'm1', text: 'hi', modality: 'text' },
    });
    const running = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c1', name: 'book', arguments: {} },
    });
    await worker.waitResults(answered);
    await worker.waitResults(running);

    // The server drops the backend (as a crash of its network would); the tool keeps running.
    await kick(lk, room, backendIdentity);
    await disconnected;
    expect(first.open).toBe(false);

    const second = await join();
    expect(second.agentIdentity).toBe(worker.identity);
    // The worker re-sends both pending callbacks with their requestIds.
    await worker.request(
      backendIdentity,
      'input',
      { input: { id: 'm1', text: 'hi', modality: 'text' } },
      answered,
    );
    await worker.request(
      backendIdentity,
      'tool',
      { tool: { callId: 'c1', name: 'book', arguments: {} } },
      running,
    );
    await worker.waitResults(answered, 2);
    finish('table for two');
    const results = await worker.waitResults(running, 2);

    expect(dropped).toBe(1);
    expect(calls).toEqual({ m1: 1, c1: 1 });
    expect(worker.results(answered).map((r) => r.body)).toEqual([
      { requestId: answered, type: 'result', value: { action: 'reply', text: 'answer to m1' } },
      { requestId: answered, type: 'result', value: { action: 'reply', text: 'answer to m1' } },
    ]);
    expect(results.map((r) => r.body)).toEqual([
      { requestId: running, type: 'progress', value: { stage: 'dispatched' } },
      { requestId: running, type: 'result', value: { booked: 'table for two' } },
    ]);
  });

  it('progress reported while disconnected reaches the worker after the rejoin', async () => {
    let step!: (value: unknown) => void;
    let steps = new Promise((resolve) => {
      step = resolve;
    });
    const next = async () => {
      const value = await steps;
      steps = new Promise((resolve) => {
        step = resolve;
      });
      return value;
    };
    let started = false;
    let progressed = false;
    const { room, worker, backendIdentity, join } = await session({
      onTool: async (_call, { progress }) => {
        started = true;
        await progress(await next());
        progressed = true;
        return { done: await next() };
      },
    });
    let lost!: () => void;
    const disconnected = new Promise<void>((resolve) => {
      lost = resolve;
    });
    await join({ onDisconnected: () => lost() });
    const id = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c', name: 't', arguments: {} },
    });
    // The backend must hold the call before it goes offline; a request still on its way
    // when the connection drops is re-delivered at the rejoin instead.
    await waitFor(() => started, { what: 'the backend to run the tool handler' });
    await kick(lk, room, backendIdentity);
    await disconnected;
    step({ stage: 'reported offline' });
    await waitFor(() => progressed, { what: 'the handler to report progress while offline' });
    expect(worker.results(id)).toEqual([]);

    await join();
    await worker.request(
      backendIdentity,
      'tool',
      { tool: { callId: 'c', name: 't', arguments: {} } },
      id,
    );
    await worker.waitResults(id);
    step('yes');
    const results = await worker.waitResults(id, 2);
    expect(results.map((r) => r.body)).toEqual([
      { requestId: id, type: 'progress', value: { stage: 'reported offline' } },
      { requestId: id, type: 'result', value: { done: 'yes' } },
    ]);
  });

  it('after close(), a re-sent callback runs its handler again (close abandons running calls)', async () => {
    let runs = 0;
    let aborted: unknown;
    const { worker, backendIdentity, join } = await session({
      onTool: async (_call, { signal }) => {
        runs += 1;
        if (runs === 1) {
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
          aborted = signal.reason;
          return 'never sent';
        }
        return 'second run';
      },
    });
    const first = await join();
    const id = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c', name: 't', arguments: {} },
    });
    await waitFor(() => runs === 1, { what: 'the first run to start' });
    await first.close();
    expect(aborted).toMatchObject({ code: 'connection_closed' });
    await join();
    await worker.request(
      backendIdentity,
      'tool',
      { tool: { callId: 'c', name: 't', arguments: {} } },
      id,
    );
    const [result] = await worker.waitResults(id);
    expect(result?.body).toEqual({ requestId: id, type: 'result', value: 'second run' });
    expect(runs).toBe(2);
  });
});

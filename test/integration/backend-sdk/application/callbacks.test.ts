// backend-sdk application sessions against the real livekit-server, with a small rtc-node
// peer playing the worker: the handshake, each callback handler, progress, cancellation,
// refusals and the envelope limit, asserted on what the worker receives.

import { randomUUID } from 'node:crypto';
import {
  ApplicationConnection,
  ApplicationError,
  type ApplicationHandlers,
  CallCancelledError,
  type JoinOptions,
  RequestLedger,
} from '../../../../backend-sdk/src/application/index.ts';
import { afterEach, beforeAll, describe, expect, it } from '../../../fixtures/index.ts';
import type { LivekitServer } from '../../../helpers/livekit.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { mintControl, recordingLogger, VERSION_ATTRIBUTE, WorkerPeer } from './peer.ts';

let lk: LivekitServer;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(({ livekit }) => {
  lk = livekit;
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/** A room with the worker peer in it and the backend joined with `handlers`. */
async function session(handlers: ApplicationHandlers, options: JoinOptions = {}) {
  const room = `awp-${randomUUID()}`;
  const backendIdentity = `app-backend-${randomUUID()}`;
  const worker = await WorkerPeer.join(lk, room, { identity: `agent-${randomUUID()}` });
  cleanup.push(() => worker.leave());
  const control = await mintControl(lk, room, backendIdentity);
  const logger = recordingLogger();
  const connection = await ApplicationConnection.join(control, handlers, {
    logger,
    ledger: new RequestLedger(),
    ...options,
  });
  cleanup.push(() => connection.close());
  return { room, backendIdentity, worker, connection, logger, control };
}

describe('backend-sdk application connection: handshake', () => {
  it('joins once the Agent advertises protocol 2 and advertises 2 itself', async () => {
    const { worker, backendIdentity, connection } = await session({});
    expect(connection.agentIdentity).toBe(worker.identity);
    const version = await waitFor(() => worker.attributesOf(backendIdentity)?.[VERSION_ATTRIBUTE], {
      what: 'the backend capability attribute',
    });
    expect(version).toBe('2');
  });

  it.each([
    ['advertises no version', undefined],
    ['advertises version 1', '1'],
  ])('fails closed with unsupported_worker when the worker %s', async (_what, version) => {
    const room = `awp-${randomUUID()}`;
    const worker = await WorkerPeer.join(lk, room, { identity: `agent-${randomUUID()}`, version });
    cleanup.push(() => worker.leave());
    const control = await mintControl(lk, room, `app-backend-${randomUUID()}`);
    const failure = await ApplicationConnection.join(control, {}, { agentTimeoutMs: 3_000 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApplicationError);
    expect((failure as ApplicationError).code).toBe('unsupported_worker');
    expect((failure as ApplicationError).message).toContain(worker.identity);
    // Failing closed also leaves the room: the worker no longer sees the backend.
    await waitFor(() => !worker.room.remoteParticipants.has(control.identity), {
      what: 'the backend to leave after failing closed',
    });
  });

  it('does not take a participant that is not an Agent for the worker', async () => {
    const room = `awp-${randomUUID()}`;
    const impostor = await WorkerPeer.join(lk, room, {
      identity: `agent-${randomUUID()}`,
      agent: false,
    });
    cleanup.push(() => impostor.leave());
    const control = await mintControl(lk, room, `app-backend-${randomUUID()}`);
    await expect(
      ApplicationConnection.join(control, {}, { agentTimeoutMs: 3_000 }),
    ).rejects.toMatchObject({ code: 'unsupported_worker' });
  });
});

describe('backend-sdk application connection: callbacks', () => {
  it('answers input, transcript and prepare_reply with the same requestId in body and attributes', async () => {
    const seen: unknown[] = [];
    const { worker, backendIdentity } = await session({
      onInput: (input, { requestId }) => {
        seen.push({ input, requestId });
        return input.text === 'hi'
          ? { action: 'handled' }
          : { action: 'reply', text: 'Hello!', instructions: 'be brief' };
      },
      onTranscript: async (line) => {
        seen.push(line);
      },
      onPrepareReply: ({ id }) => ({ instructions: `announce ${id}` }),
    });
    const handled = await worker.request(backendIdentity, 'input', {
      input: { id: 'm1', text: 'hi', modality: 'audio' },
    });
    const replied = await worker.request(backendIdentity, 'input', {
      input: { id: 'm2', text: 'help', modality: 'text' },
    });
    const line = await worker.request(backendIdentity, 'transcript', {
      transcript: { id: 't1', role: 'agent', text: 'Hello there', interrupted: true },
    });
    const prepare = await worker.request(backendIdentity, 'prepare_reply', {
      prepareReply: { id: 'u7' },
    });

    const [a] = await worker.waitResults(handled);
    expect(a?.body).toEqual({ requestId: handled, type: 'result', value: { action: 'handled' } });
    expect(a?.attributes).toEqual({ requestId: handled, type: 'result' });
    expect(a?.from).toBe(backendIdentity);
    const [b] = await worker.waitResults(replied);
    expect(b?.body).toEqual({
      requestId: replied,
      type: 'result',
      value: { action: 'reply', text: 'Hello!', instructions: 'be brief' },
    });
    const [c] = await worker.waitResults(line);
    expect(c?.body).toEqual({ requestId: line, type: 'result', value: null });
    const [d] = await worker.waitResults(prepare);
    expect(d?.body).toEqual({
      requestId: prepare,
      type: 'result',
      value: { instructions: 'announce u7' },
    });
    expect(seen).toContainEqual({
      input: { id: 'm1', text: 'hi', modality: 'audio' },
      requestId: handled,
    });
    expect(seen).toContainEqual({
      id: 't1',
      role: 'agent',
      text: 'Hello there',
      interrupted: true,
    });
  });

  it('sends tool progress then the result, in order, and undefined as null', async () => {
    const { worker, backendIdentity } = await session({
      onTool: async (call, { progress }) => {
        if (call.name === 'silent') return undefined;
        await progress({ stage: 'queued' });
        await progress({ stage: 'driving', etaMin: 7 });
        return { delivered: true, args: call.arguments };
      },
    });
    const id = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c1', name: 'dispatch', arguments: { to: 'Main St 1' } },
    });
    const silent = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c2', name: 'silent', arguments: {} },
    });
    const results = await worker.waitResults(id, 3);
    expect(results.map((r) => r.body)).toEqual([
      { requestId: id, type: 'progress', value: { stage: 'queued' } },
      { requestId: id, type: 'progress', value: { stage: 'driving', etaMin: 7 } },
      { requestId: id, type: 'result', value: { delivered: true, args: { to: 'Main St 1' } } },
    ]);
    expect(results.map((r) => r.attributes.type)).toEqual(['progress', 'progress', 'result']);
    expect((await worker.waitResults(silent))[0]?.body).toEqual({
      requestId: silent,
      type: 'result',
      value: null,
    });
  });

  it('answers error for a thrown handler, a non-JSON value, an oversized result and a missing handler', async () => {
    const { worker, backendIdentity } = await session({
      onTool: (call) => {
        if (call.name === 'throws') throw new Error('no courier free');
        if (call.name === 'coded')
          throw new ApplicationError({ code: 'not_authorized', message: 'not yours' });
        if (call.name === 'bigint') return { amount: 10n };
        return 'x'.repeat(256_000);
      },
    });
    const ask = (name: string) =>
      worker.request(backendIdentity, 'tool', {
        tool: { callId: randomUUID(), name, arguments: {} },
      });
    const cases = {
      throws: await ask('throws'),
      coded: await ask('coded'),
      bigint: await ask('bigint'),
      huge: await ask('huge'),
      input: await worker.request(backendIdentity, 'input', {
        input: { id: 'm', text: 'x', modality: 'text' },
      }),
    };
    const errorOf = async (id: string) => {
      const [r] = await worker.waitResults(id);
      expect(r?.body.type).toBe('error');
      expect(r?.attributes).toEqual({ requestId: id, type: 'error' });
      return r?.body.error as { code: string; message: string };
    };
    expect(await errorOf(cases.throws)).toEqual({
      code: 'handler_error',
      message: 'no courier free',
    });
    expect(await errorOf(cases.coded)).toEqual({ code: 'not_authorized', message: 'not yours' });
    expect(await errorOf(cases.bigint)).toMatchObject({
      code: 'invalid_result',
      message: expect.stringContaining('$.amount is a bigint'),
    });
    expect((await errorOf(cases.huge)).code).toBe('payload_too_large');
    expect((await errorOf(cases.input)).code).toBe('not_implemented');
  });

  it('refuses an oversized progress inside the handler, before anything is sent', async () => {
    let refusal: unknown;
    const { worker, backendIdentity } = await session({
      onTool: async (_call, { progress }) => {
        refusal = await progress('y'.repeat(300_000)).catch((error: unknown) => error);
        return 'done';
      },
    });
    const id = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c', name: 't', arguments: {} },
    });
    const [only] = await worker.waitResults(id);
    expect(only?.body).toEqual({ requestId: id, type: 'result', value: 'done' });
    expect(refusal).toMatchObject({ code: 'payload_too_large' });
    expect(worker.results(id)).toHaveLength(1);
  });

  it('aborts the handler signal on application.cancel and drops its late result', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reason: unknown;
    const { worker, backendIdentity } = await session({
      onTool: async (call, { progress, signal }) => {
        if (call.name === 'probe') return 'ok';
        await progress({ started: true });
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        reason = signal.reason;
        await released;
        await progress({ late: true });
        return 'late result';
      },
    });
    const id = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'c9', name: 'drive', arguments: {} },
    });
    await worker.waitResults(id, 1);
    await worker.cancel(backendIdentity, id, 'interrupted');
    await waitFor(() => reason, { what: 'the handler signal to abort' });
    expect(reason).toBeInstanceOf(CallCancelledError);
    expect((reason as CallCancelledError).reason).toBe('interrupted');
    release();
    // A later request proves the connection still answers, and nothing late came before it.
    const probe = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'p', name: 'probe', arguments: {} },
    });
    await worker.waitResults(probe);
    expect(worker.results(id).map((r) => r.body.type)).toEqual(['progress']);
  });

  it('ignores and logs callbacks from a participant other than the Agent', async () => {
    let calls = 0;
    const { room, worker, backendIdentity, logger } = await session({
      onTool: () => {
        calls += 1;
        return 'ran';
      },
    });
    const intruder = await WorkerPeer.join(lk, room, {
      identity: `user-${randomUUID()}`,
      agent: false,
    });
    cleanup.push(() => intruder.leave());
    const forged = await intruder.request(backendIdentity, 'tool', {
      tool: { callId: 'f', name: 'refund', arguments: {} },
    });
    const line = await waitFor(() => logger.lines.find((l) => l.fields.requestId === forged), {
      what: 'the refusal to be logged',
    });
    expect(line.fields).toMatchObject({
      identity: intruder.identity,
      topic: 'application.request',
    });
    // The real Agent's callback still runs; the forged one never reached the handler.
    const real = await worker.request(backendIdentity, 'tool', {
      tool: { callId: 'r', name: 'refund', arguments: {} },
    });
    await worker.waitResults(real);
    expect(calls).toBe(1);
    expect(intruder.received).toEqual([]);
  });

  it('answers payload_too_large to a request over 256,000 characters and invalid_request to a malformed one', async () => {
    let calls = 0;
    const { worker, backendIdentity } = await session({
      onInput: () => {
        calls += 1;
        return { action: 'handled' };
      },
    });
    const big = randomUUID();
    const body = JSON.stringify({
      requestId: big,
      type: 'input',
      input: { id: 'm', text: 'z'.repeat(256_000), modality: 'text' },
    });
    await worker.sendRaw(backendIdentity, 'application.request', body, { requestId: big });
    expect((await worker.waitResults(big))[0]?.body).toMatchObject({
      requestId: big,
      type: 'error',
      error: { code: 'payload_too_large' },
    });
    // Past the transport's cap (3 bytes per allowed character) the stream itself is cut off.
    const huge = randomUUID();
    const hugeBody = JSON.stringify({
      requestId: huge,
      type: 'input',
      input: { id: 'm', text: 'z'.repeat(800_000), modality: 'text' },
    });
    await worker.sendRaw(backendIdentity, 'application.request', hugeBody, { requestId: huge });
    expect((await worker.waitResults(huge))[0]?.body).toMatchObject({
      requestId: huge,
      type: 'error',
      error: { code: 'payload_too_large' },
    });
    const bad = await worker.request(backendIdentity, 'input', {
      input: { id: 'm', text: 'x', modality: 'smoke' },
    });
    expect((await worker.waitResults(bad))[0]?.body).toMatchObject({
      type: 'error',
      error: { code: 'invalid_request' },
    });
    expect(calls).toBe(0);
  });
});

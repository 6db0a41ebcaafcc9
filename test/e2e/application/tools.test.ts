// Application tools end to end: the `tool` callback blocking the reply until its result,
// progress making a call non-blocking, `runReply: false` followed by a spoken update,
// each `onDuplicate` policy, a cancellable call cancelled by the user interrupting (while
// the reply waits on it, and while it runs in the background), and `cancelTool`. The
// backend is built on backend-sdk (`onTool` with its progress reporter and AbortSignal);
// no raw peer is needed here. The OpenAI chat fake scripts the model's tool calls.

import { describe, expect } from 'vitest';
import {
  type ApplicationHandlers,
  CallCancelledError,
} from '../../../backend-sdk/src/application/index.ts';
import { type ApplicationStack, applicationTest, declaredTool, llmMessages } from './harness.ts';
import { deferred, modelAnswers } from './sdk-backend.ts';

const DEADLINE_MS = 6000;

/** The tool outputs the model was given in its last request, by call id. */
function toolOutputs(stack: ApplicationStack): Map<string, string> {
  return new Map(
    llmMessages(stack.llm)
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id ?? '', m.content ?? '']),
  );
}

/** Settles when `signal` aborts: how a handler waits on work the worker may cancel. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

const it = applicationTest(DEADLINE_MS);

describe('application sessions: tools (backend-sdk, worker, livekit-server, api)', () => {
  let stack: ApplicationStack;

  it.beforeAll(async ({ stack: started }) => {
    stack = started;
  }, 180_000);

  it('blocks the reply until the result, goes on after a first progress, and keeps runReply:false results quiet until requestReply speaks once', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({
      tools: [
        declaredTool('check_menu', {
          parameters: { type: 'object', properties: { day: { type: 'string' } } },
        }),
        declaredTool('dispatch_courier'),
        declaredTool('book_table', { runReply: false }),
      ],
    });
    const { user, backend } = session;
    const { connection } = backend;
    const menu = deferred<unknown>();
    const courier = deferred<unknown>();
    const booking = deferred<unknown>();
    backend.handlers = {
      ...modelAnswers,
      onTool: async (call, { progress }) => {
        if (call.name === 'check_menu') return menu.promise;
        if (call.name === 'dispatch_courier') {
          await progress('courier dispatched');
          return courier.promise;
        }
        return booking.promise;
      },
    };
    try {
      // Blocking: the answer waits for the result, which the model reads.
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_menu', name: 'check_menu', arguments: '{"day":"monday"}' }],
      });
      llm.script({ text: ['Tomato', ' soup today.'] });
      await user.sendText('What is on the menu?');
      const menuCall = await backend.tool('call_menu');
      expect(menuCall.event).toEqual({
        callId: 'call_menu',
        name: 'check_menu',
        arguments: { day: 'monday' },
      });
      const offered = (
        llm.requests.at(-1)?.body as { tools?: { function: { name: string } }[] } | undefined
      )?.tools;
      expect(offered?.map((t) => t.function.name).sort()).toEqual([
        'book_table',
        'check_menu',
        'dispatch_courier',
      ]);
      const whileBlocked = llm.requests.length;
      expect(user.transcripts().some((t) => t.text === 'Tomato soup today.')).toBe(false);
      menu.resolve({ soup: 'tomato' });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Tomato soup today.'),
        30_000,
        'the answer after the tool',
      );
      expect(llm.requests.length).toBe(whileBlocked + 1);
      expect(toolOutputs(stack).get('call_menu')).toBe('{"soup":"tomato"}');

      // Progress: the conversation goes on, the final result is told later.
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_courier', name: 'dispatch_courier', arguments: '{}' }],
      });
      llm.script({ text: ['The courier', ' is on the way.'] });
      llm.script({ text: ['The courier', ' arrives in five minutes.'] });
      await user.sendText('Send a courier.');
      await backend.tool('call_courier');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'The courier is on the way.'),
        30_000,
        'the answer after the first progress',
      );
      expect(toolOutputs(stack).get('call_courier')).toContain('courier dispatched');
      courier.resolve({ eta: 'five minutes' });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'The courier arrives in five minutes.'),
        30_000,
        'the answer to the final result',
      );
      expect(JSON.stringify(llmMessages(llm))).toContain('five minutes');
      expect(backend.cancels).toEqual([]);

      // runReply:false: the result enters the context, no reply; requestReply speaks once.
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_book', name: 'book_table', arguments: '{}' }],
      });
      await user.sendText('Book a table.');
      await backend.tool('call_book');
      const requestsBefore = llm.requests.length;
      // The Agent waits on the call (thinking) and is done with the turn once the result is
      // in (listening, nothing said): only then does this backend ask for the update, as a
      // backend asks after its work finished (asking first would speak before the result).
      const agentState = () =>
        user.room.remoteParticipants.get(session.started.agentIdentity)?.attributes[
          'lk.agent.state'
        ];
      expect(agentState()).toBe('thinking');
      booking.resolve({ ticket: 'T-1' });
      await user.waitUntil(
        () => agentState() === 'listening',
        30_000,
        'the Agent done with the quiet result',
      );
      llm.script({ text: ['Table', ' T-1 is booked.'] });
      const first = await connection.requestReply('booked', {
        instructions: 'Confirm the booking.',
      });
      expect(first).toEqual({
        id: 'booked',
        interrupted: false,
        spokenText: 'Table T-1 is booked.',
        completion: 'worker_playout',
      });
      // Exactly one model request since the result: the requested update, not a tool reply,
      // and a spoken update calls no tools (text only, with the tools still listed).
      expect(llm.requests.length).toBe(requestsBefore + 1);
      expect(llm.requests.at(-1)?.body).toMatchObject({
        tool_choice: 'none',
        tools: expect.arrayContaining([expect.objectContaining({ type: 'function' })]),
      });
      expect(toolOutputs(stack).get('call_book')).toBe('{"ticket":"T-1"}');
      expect(await connection.requestReply('booked')).toEqual(first);
      expect(llm.requests.length).toBe(requestsBefore + 1);
      expect(user.transcripts().filter((t) => t.text === 'Table T-1 is booked.')).toHaveLength(1);
      expect(backend.of('tool').map((s) => s.event.callId)).toEqual([
        'call_menu',
        'call_courier',
        'call_book',
      ]);
    } finally {
      await session.leave();
    }
  });

  it('applies each onDuplicate policy to a second call of a running tool', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({
      tools: [
        declaredTool('allow_tool'),
        declaredTool('reject_tool', { onDuplicate: 'reject' }),
        declaredTool('replace_tool', { onDuplicate: 'replace' }),
        declaredTool('confirm_tool', { onDuplicate: 'confirm' }),
      ],
    });
    const { user, backend } = session;
    // Calls meant to keep running report progress and wait until cancelled; any other call
    // that reaches the backend (the duplicates allowed to run) is answered at once.
    const background = new Set<string>();
    backend.handlers = {
      ...modelAnswers,
      onTool: async (call, { progress, signal }) => {
        if (!background.has(call.callId)) return { ok: true };
        await progress({ started: true });
        return untilAborted(signal);
      },
    };
    let n = 0;
    /** One user turn in which the model calls `name` as `callId`, then says something. */
    const callIn = async (name: string, callId: string) => {
      n += 1;
      llm.script({ text: [], toolCalls: [{ id: callId, name, arguments: '{}' }] });
      llm.script({ text: [`Answer ${n}.`] });
      await user.sendText(`Turn ${n}.`);
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === `Answer ${n}.`),
        30_000,
        `answer ${n}`,
      );
    };
    /** Starts `name` and makes it run in the background. */
    const running = async (name: string, callId: string) => {
      background.add(callId);
      await callIn(name, callId);
      return backend.tool(callId);
    };
    try {
      await running('allow_tool', 'allow_1');
      await callIn('allow_tool', 'allow_2');
      await backend.tool('allow_2');

      await running('reject_tool', 'reject_1');
      await callIn('reject_tool', 'reject_2');
      expect(toolOutputs(stack).get('reject_2')).toContain('duplicate_rejected');

      const replaced = await running('replace_tool', 'replace_1');
      await callIn('replace_tool', 'replace_2');
      await backend.tool('replace_2');
      expect(await backend.cancelOf(replaced.requestId)).toEqual({
        requestId: replaced.requestId,
        reason: 'replaced',
      });

      await running('confirm_tool', 'confirm_1');
      await callIn('confirm_tool', 'confirm_2');
      expect(toolOutputs(stack).get('confirm_2')).toMatch(/already running.*confirm/i);
      // The user confirms: the next turn's call runs.
      await callIn('confirm_tool', 'confirm_3');
      await backend.tool('confirm_3');

      expect(backend.of('tool').map((s) => s.event.callId)).toEqual([
        'allow_1',
        'allow_2',
        'reject_1',
        'replace_1',
        'replace_2',
        'confirm_1',
        'confirm_3',
      ]);
      // Only the replaced call was cancelled.
      expect(backend.cancels).toEqual([{ requestId: replaced.requestId, reason: 'replaced' }]);
    } finally {
      await session.leave();
    }
  });

  it('cancels a cancellable call when the user interrupts, and a call the backend cancels', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({
      tools: [declaredTool('search_flights', { cancellable: true }), declaredTool('long_job')],
    });
    const { user, backend } = session;
    const { connection } = backend;
    const reasons = new Map<string, unknown>();
    backend.handlers = {
      ...modelAnswers,
      onTool: async (call, { progress, signal }) => {
        signal.addEventListener('abort', () => reasons.set(call.callId, signal.reason));
        if (call.name === 'long_job') await progress({ step: 1 });
        return untilAborted(signal);
      },
    };
    try {
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_search', name: 'search_flights', arguments: '{}' }],
      });
      await user.sendText('Find me a flight.');
      const search = await backend.tool('call_search');
      // The user interrupts while the Agent waits on the tool.
      llm.script({ text: ['Okay,', ' stopped.'] });
      await user.sendText('Actually, stop.');
      expect(await backend.cancelOf(search.requestId)).toEqual({
        requestId: search.requestId,
        reason: 'interrupted',
      });
      expect(reasons.get('call_search')).toBeInstanceOf(CallCancelledError);
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Okay, stopped.'),
        30_000,
        'the answer to the interruption',
      );

      // cancelTool from the backend, for a call that runs in the background.
      llm.script({ text: [], toolCalls: [{ id: 'call_job', name: 'long_job', arguments: '{}' }] });
      llm.script({ text: ['Working', ' on it.'] });
      await user.sendText('Start the job.');
      const job = await backend.tool('call_job');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Working on it.'),
        30_000,
        'the answer after progress',
      );
      expect(await connection.cancelTool('call_job')).toBe(true);
      expect(await backend.cancelOf(job.requestId)).toEqual({
        requestId: job.requestId,
        reason: 'backend_cancelled',
      });
      expect(await connection.cancelTool('call_never')).toBe(false);
      expect(backend.cancels).toEqual([
        { requestId: search.requestId, reason: 'interrupted' },
        { requestId: job.requestId, reason: 'backend_cancelled' },
      ]);
    } finally {
      await session.leave();
    }
  });

  it('cancels a cancellable call running in the background when the user interrupts the Agent speaking', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({
      tools: [declaredTool('track_order', { cancellable: true })],
    });
    const { user, backend } = session;
    let aborted: unknown;
    const handlers: ApplicationHandlers = {
      ...modelAnswers,
      onTool: async (_call, { progress, signal }) => {
        signal.addEventListener('abort', () => {
          aborted = signal.reason;
        });
        await progress({ stage: 'tracking' });
        return untilAborted(signal);
      },
    };
    backend.handlers = handlers;
    try {
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_track', name: 'track_order', arguments: '{}' }],
      });
      // The reply after the first progress is long, so the user can cut into it.
      const long = Array.from({ length: 8 }, (_, i) => `Tracking step ${i + 1} is underway.`);
      llm.script({ text: long.map((s) => ` ${s}`) });
      const from = performance.now();
      await user.sendText('Track my order.');
      const track = await backend.tool('call_track');
      await user.waitUntil(
        () => user.loudFramesSince(from) > 20,
        30_000,
        'the Agent speaking after the first progress',
      );
      // Still running in the background while the Agent speaks.
      expect(backend.cancels).toEqual([]);
      llm.script({ text: ['Sure,', ' I stopped.'] });
      await user.sendText('Wait, stop talking.');
      expect(await backend.cancelOf(track.requestId)).toEqual({
        requestId: track.requestId,
        reason: 'interrupted',
      });
      expect(aborted).toBeInstanceOf(CallCancelledError);
      expect((aborted as CallCancelledError).reason).toBe('interrupted');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Sure, I stopped.'),
        30_000,
        'the answer to the interruption',
      );
      // The interrupted reply was cut short: the whole text was never heard.
      const agentLines = user.transcripts().filter((t) => t.role === 'agent');
      expect(agentLines.some((t) => t.text === long.join(' '))).toBe(false);
      expect(backend.of('tool')).toHaveLength(1);
      expect(backend.cancels).toHaveLength(1);
    } finally {
      await session.leave();
    }
  });
});

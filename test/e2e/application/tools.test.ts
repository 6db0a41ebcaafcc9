// Application tools end to end: the `tool` callback blocking the reply until its result,
// progress making a call non-blocking, `runReply: false` followed by a spoken update,
// each `onDuplicate` policy, a cancellable call cancelled by the user interrupting, and the
// `cancel_tool` command. The OpenAI chat fake scripts the model's tool calls.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutoAnswer, TestApplicationBackend } from '../../helpers/application-backend.ts';
import type { RoomClient } from '../../helpers/room-client.ts';
import {
  type ApplicationStack,
  declaredTool,
  llmMessages,
  startApplicationStack,
} from './harness.ts';

const DEADLINE_MS = 6000;

/** Inputs go to the model, transcripts are acknowledged: the backend only runs tools. */
const toolsOnly: AutoAnswer = (request) => {
  if (request.type === 'transcript') return { type: 'result', value: null };
  if (request.type === 'input') {
    return { type: 'error', error: { code: 'not_mine', message: 'model answers' } };
  }
  return undefined;
};

/** The tool outputs the model was given in its last request, by call id. */
function toolOutputs(stack: ApplicationStack): Map<string, string> {
  return new Map(
    llmMessages(stack.llm)
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id ?? '', m.content ?? '']),
  );
}

describe('application sessions: tools (worker, livekit-server, api)', () => {
  let stack: ApplicationStack;

  beforeAll(async () => {
    stack = await startApplicationStack(DEADLINE_MS);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  /** The user types `text`; the model's next answers are `scripts`. */
  async function turn(user: RoomClient, text: string): Promise<void> {
    await user.sendText(text);
  }

  async function toolRequest(backend: TestApplicationBackend, callId: string) {
    return backend.waitUntil(
      () =>
        backend.requests.find(
          (r) => r.type === 'tool' && (r.body.tool as { callId: string }).callId === callId,
        ),
      30_000,
      `the tool callback of ${callId}`,
    );
  }

  it('blocks the reply until the result, goes on after a first progress, and keeps runReply:false results quiet until requestReply speaks once', async () => {
    const { llm } = stack;
    const session = await stack.open({
      tools: [
        declaredTool('check_menu', {
          parameters: { type: 'object', properties: { day: { type: 'string' } } },
        }),
        declaredTool('dispatch_courier'),
        declaredTool('book_table', { runReply: false }),
      ],
    });
    const { user, backend } = session;
    backend.autoAnswer = toolsOnly;
    try {
      // Blocking: the answer waits for the result, which the model reads.
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_menu', name: 'check_menu', arguments: '{"day":"monday"}' }],
      });
      llm.script({ text: ['Tomato', ' soup today.'] });
      await turn(user, 'What is on the menu?');
      const menu = await toolRequest(backend, 'call_menu');
      expect(menu.body.tool).toEqual({
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
      await backend.respond(menu.requestId, 'result', { soup: 'tomato' });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Tomato soup today.'),
        30_000,
        'the answer after the tool',
      );
      expect(toolOutputs(stack).get('call_menu')).toBe('{"soup":"tomato"}');

      // Progress: the conversation goes on, the final result is told later.
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_courier', name: 'dispatch_courier', arguments: '{}' }],
      });
      llm.script({ text: ['The courier', ' is on the way.'] });
      llm.script({ text: ['The courier', ' arrives in five minutes.'] });
      await turn(user, 'Send a courier.');
      const courier = await toolRequest(backend, 'call_courier');
      await backend.respond(courier.requestId, 'progress', 'courier dispatched');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'The courier is on the way.'),
        30_000,
        'the answer after the first progress',
      );
      expect(toolOutputs(stack).get('call_courier')).toContain('courier dispatched');
      await backend.respond(courier.requestId, 'result', { eta: 'five minutes' });
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
      await turn(user, 'Book a table.');
      const book = await toolRequest(backend, 'call_book');
      const requestsBefore = llm.requests.length;
      await backend.respond(book.requestId, 'result', { ticket: 'T-1' });
      llm.script({ text: ['Table', ' T-1 is booked.'] });
      const first = await backend.command('request_reply', {
        id: 'booked',
        instructions: 'Confirm the booking.',
      });
      expect(first).toMatchObject({
        type: 'result',
        value: { id: 'booked', interrupted: false, spokenText: 'Table T-1 is booked.' },
      });
      // Exactly one model request since the result: the requested update, not a tool reply.
      expect(llm.requests.length).toBe(requestsBefore + 1);
      expect(toolOutputs(stack).get('call_book')).toBe('{"ticket":"T-1"}');
      const reused = await backend.command('request_reply', { id: 'booked' });
      expect(reused.value).toEqual(first.value);
      expect(llm.requests.length).toBe(requestsBefore + 1);
      expect(user.transcripts().filter((t) => t.text === 'Table T-1 is booked.')).toHaveLength(1);
    } finally {
      await session.leave();
    }
  });

  it('applies each onDuplicate policy to a second call of a running tool', async () => {
    const { llm } = stack;
    const session = await stack.open({
      tools: [
        declaredTool('allow_tool'),
        declaredTool('reject_tool', { onDuplicate: 'reject' }),
        declaredTool('replace_tool', { onDuplicate: 'replace' }),
        declaredTool('confirm_tool', { onDuplicate: 'confirm' }),
      ],
    });
    const { user, backend } = session;
    // Calls meant to keep running get progress from the test; any other call that reaches
    // the backend (the duplicates allowed to run) is answered at once.
    const background = new Set<string>();
    backend.autoAnswer = (request) => {
      const callId = (request.body.tool as { callId?: string } | undefined)?.callId;
      if (request.type === 'tool' && callId && !background.has(callId)) {
        return { type: 'result', value: { ok: true } };
      }
      return toolsOnly(request);
    };
    let n = 0;
    /** One user turn in which the model calls `name` as `callId`, then says something. */
    const callIn = async (name: string, callId: string) => {
      n += 1;
      llm.script({ text: [], toolCalls: [{ id: callId, name, arguments: '{}' }] });
      llm.script({ text: [`Answer ${n}.`] });
      await turn(user, `Turn ${n}.`);
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === `Answer ${n}.`),
        30_000,
        `answer ${n}`,
      );
    };
    /** Starts `name` and makes it run in the background. */
    const running = async (name: string, callId: string) => {
      background.add(callId);
      llm.script({ text: [], toolCalls: [{ id: callId, name, arguments: '{}' }] });
      n += 1;
      llm.script({ text: [`Answer ${n}.`] });
      await turn(user, `Turn ${n}.`);
      const request = await toolRequest(backend, callId);
      await backend.respond(request.requestId, 'progress', { started: true });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === `Answer ${n}.`),
        30_000,
        `answer ${n}`,
      );
      return request;
    };
    try {
      await running('allow_tool', 'allow_1');
      await callIn('allow_tool', 'allow_2');
      await toolRequest(backend, 'allow_2');

      await running('reject_tool', 'reject_1');
      await callIn('reject_tool', 'reject_2');
      expect(toolOutputs(stack).get('reject_2')).toContain('duplicate_rejected');

      const replaced = await running('replace_tool', 'replace_1');
      await callIn('replace_tool', 'replace_2');
      await toolRequest(backend, 'replace_2');
      expect(backend.cancels.map((c) => c.body)).toContainEqual({
        requestId: replaced.requestId,
        reason: 'replaced',
      });

      await running('confirm_tool', 'confirm_1');
      await callIn('confirm_tool', 'confirm_2');
      expect(toolOutputs(stack).get('confirm_2')).toMatch(/already running.*confirm/i);
      // The user confirms: the next turn's call runs.
      await callIn('confirm_tool', 'confirm_3');
      await toolRequest(backend, 'confirm_3');

      const toolCalls = backend.requests
        .filter((r) => r.type === 'tool')
        .map((r) => (r.body.tool as { callId: string }).callId);
      expect(toolCalls).not.toContain('reject_2');
      expect(toolCalls).not.toContain('confirm_2');
    } finally {
      await session.leave();
    }
  });

  it('cancels a cancellable call when the user interrupts, and a call the backend cancels', async () => {
    const { llm } = stack;
    const session = await stack.open({
      tools: [declaredTool('search_flights', { cancellable: true }), declaredTool('long_job')],
    });
    const { user, backend } = session;
    backend.autoAnswer = toolsOnly;
    try {
      llm.script({
        text: [],
        toolCalls: [{ id: 'call_search', name: 'search_flights', arguments: '{}' }],
      });
      await turn(user, 'Find me a flight.');
      const search = await toolRequest(backend, 'call_search');
      // The user interrupts while the Agent waits on the tool.
      llm.script({ text: ['Okay,', ' stopped.'] });
      await turn(user, 'Actually, stop.');
      const cancel = await backend.waitUntil(
        () => backend.cancels.find((c) => c.requestId === search.requestId),
        30_000,
        'the cancellation',
      );
      expect(cancel.body).toEqual({ requestId: search.requestId, reason: 'interrupted' });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Okay, stopped.'),
        30_000,
        'the answer to the interruption',
      );
      // A late result is ignored: the conversation goes on.
      await backend.respond(search.requestId, 'result', { flights: [] });

      // cancel_tool from the backend, for a call that runs in the background.
      llm.script({ text: [], toolCalls: [{ id: 'call_job', name: 'long_job', arguments: '{}' }] });
      llm.script({ text: ['Working', ' on it.'] });
      await turn(user, 'Start the job.');
      const job = await toolRequest(backend, 'call_job');
      await backend.respond(job.requestId, 'progress', { step: 1 });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Working on it.'),
        30_000,
        'the answer after progress',
      );
      const cancelled = await backend.command('cancel_tool', { callId: 'call_job' });
      expect(cancelled).toMatchObject({ type: 'result', value: { cancelled: true } });
      expect(backend.cancels.map((c) => c.body)).toContainEqual({
        requestId: job.requestId,
        reason: 'backend_cancelled',
      });
      const unknown = await backend.command('cancel_tool', { callId: 'call_never' });
      expect(unknown).toMatchObject({ type: 'result', value: { cancelled: false } });
    } finally {
      await session.leave();
    }
  });
});

// Application sessions end to end: the `input`, `transcript` and `prepare_reply` callbacks
// and the commands that need no tools (updateContext, requestReply). The backend is built
// on backend-sdk (`startApplicationSession`, `ApplicationConnection.join` with typed
// handlers); no raw peer is needed here, since nothing in this file asks the backend to do
// what the library refuses (those cases are in limits.test.ts). The end user types on
// lk.chat (one turn is spoken).

import { describe, expect } from 'vitest';
import {
  ApplicationError,
  type InputDecision,
} from '../../../backend-sdk/src/application/index.ts';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { speech } from '../../helpers/room-client.ts';
import { type ApplicationStack, applicationTest, llmMessages } from './harness.ts';
import { modelAnswers } from './sdk-backend.ts';

const DEADLINE_MS = 4000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Input handlers deciding by the exact text; any other input is left to the model. */
function decide(decisions: Record<string, InputDecision>) {
  return (input: { text: string }): InputDecision => {
    const decision = decisions[input.text];
    if (decision) return decision;
    throw new ApplicationError({ code: 'not_mine', message: 'let the model answer' });
  };
}

const it = applicationTest(DEADLINE_MS);

describe('application sessions: callbacks and commands (backend-sdk, worker, livekit-server, api)', () => {
  let stack: ApplicationStack;

  it.beforeAll(async ({ stack: started }) => {
    stack = started;
  }, 180_000);

  it('asks the backend about each input before the model, and reports each persisted turn', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({
      instructions: 'INSTRUCTIONS-1: you are the booking desk.',
      history: [
        { role: 'user', content: 'I booked a table last week.' },
        { role: 'assistant', content: 'I see your booking.' },
      ],
    });
    const { user, backend } = session;
    try {
      backend.handlers = {
        onTranscript: () => {},
        onInput: decide({
          'Is my table ready?': { action: 'handled' },
          'And the wine list?': { action: 'reply', text: 'The wine list is on the table.' },
        }),
      };
      const taken = new Set<string>();

      // handled: nothing is said and the model is not asked.
      const requestsBefore = llm.requests.length;
      await user.sendText('Is my table ready?');
      const first = await backend.nextInput(taken);
      expect(first.requestId).toMatch(UUID);
      expect(first.event).toEqual({
        id: expect.any(String),
        text: 'Is my table ready?',
        modality: 'text',
      });

      // reply with text: spoken as is.
      await user.sendText('And the wine list?');
      const second = await backend.nextInput(taken);
      expect(second.event.text).toBe('And the wine list?');
      expect(second.requestId).not.toBe(first.requestId);
      await user.waitUntil(
        () =>
          user
            .transcripts()
            .find((t) => t.role === 'agent' && t.text === 'The wine list is on the table.'),
        30_000,
        'the backend reply spoken',
      );
      await user.waitUntil(() => user.loudFramesSince(0) > 10, 30_000, 'reply audio');
      expect(llm.requests.length).toBe(requestsBefore);

      // An error answer lets the model answer, with the backend's instructions and history
      // and the handled input in its context; the character card is not used.
      llm.script({ text: ['Model', ' answer.'] });
      await user.sendText('What time is it?');
      const third = await backend.nextInput(taken);
      expect(third.event.text).toBe('What time is it?');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.role === 'agent' && t.text === 'Model answer.'),
        30_000,
        'the model answer',
      );
      expect(llm.requests.length).toBe(requestsBefore + 1);
      const messages = llmMessages(llm);
      expect(messages[0]).toMatchObject({
        role: 'system',
        content: 'INSTRUCTIONS-1: you are the booking desk.',
      });
      expect(JSON.stringify(messages)).not.toContain('CARD');
      const texts = messages.map((m) => `${m.role}:${m.content}`);
      expect(texts).toEqual(
        expect.arrayContaining([
          'user:I booked a table last week.',
          'assistant:I see your booking.',
          'user:Is my table ready?',
          'user:And the wine list?',
          'assistant:The wine list is on the table.',
          'user:What time is it?',
        ]),
      );
      // No tools of managed sessions (stay_quiet) are offered.
      expect((llm.requests.at(-1)?.body as { tools?: unknown } | undefined)?.tools ?? []).toEqual(
        [],
      );
      expect(backend.of('input')).toHaveLength(3);

      // Each persisted turn reached onTranscript with its durable id, once.
      const turns = await new AgentSessions(stack.handle.db, {
        heartbeatTimeoutMs: 30_000,
      }).turns(session.started.sessionId);
      expect(turns.map((t) => t.text)).toEqual([
        'Is my table ready?',
        'And the wine list?',
        'The wine list is on the table.',
        'What time is it?',
        'Model answer.',
      ]);
      const reported = await backend.waitUntil(
        () => {
          const lines = backend.of('transcript');
          return lines.length >= turns.length ? lines : undefined;
        },
        30_000,
        'a transcript callback per turn',
      );
      expect(reported.map((r) => r.event)).toEqual(
        turns.map((t) => ({ id: t.id, role: t.role, text: t.text, interrupted: false })),
      );
      const published = user.transcripts().map((t) => t.id);
      expect(published).toEqual(turns.map((t) => t.id));
      // Each input's id is the id its user message was persisted and reported under:
      // handled, replied and model-answered alike.
      expect([first, second, third].map((input) => input.event.id)).toEqual(
        turns.filter((t) => t.role === 'user').map((t) => t.id),
      );
    } finally {
      await session.leave();
    }
  });

  it('lets the model answer an input replied with text and instructions, guided by both', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({ instructions: 'INSTRUCTIONS-G: the bistro desk.' });
    const { user, backend } = session;
    try {
      backend.handlers = {
        onTranscript: () => {},
        onInput: decide({
          'Do you have a terrace?': {
            action: 'reply',
            text: 'The terrace opens at six.',
            instructions: 'GUIDE-7: answer warmly and mention the heaters.',
          },
        }),
      };
      const requestsBefore = llm.requests.length;
      llm.script({ text: ['Yes, the heated terrace', ' opens at six.'] });
      await user.sendText('Do you have a terrace?');
      await user.waitUntil(
        () =>
          user
            .transcripts()
            .find((t) => t.role === 'agent' && t.text === 'Yes, the heated terrace opens at six.'),
        30_000,
        'the guided model answer',
      );
      // One model request, carrying the backend's instructions and its text; the text
      // itself is not spoken as is.
      expect(llm.requests.length).toBe(requestsBefore + 1);
      const context = JSON.stringify(llmMessages(llm));
      expect(context).toContain('GUIDE-7: answer warmly and mention the heaters.');
      expect(context).toContain('The terrace opens at six.');
      expect(llmMessages(llm).map((m) => `${m.role}:${m.content}`)).toContain(
        'user:Do you have a terrace?',
      );
      expect(
        user
          .transcripts()
          .filter((t) => t.role === 'agent')
          .map((t) => t.text),
      ).toEqual(['Yes, the heated terrace opens at six.']);
      expect(backend.of('input').map((s) => s.event.text)).toEqual(['Do you have a terrace?']);
    } finally {
      await session.leave();
    }
  });

  it('asks about a spoken turn too (modality audio) before the model answers', async () => {
    const { llm } = stack;
    const session = await stack.openSdk({});
    const { user, backend } = session;
    backend.handlers = {
      onTranscript: () => {},
      onInput: decide({ 'Please book a table for two.': { action: 'reply', text: 'Booked.' } }),
    };
    try {
      const requestsBefore = llm.requests.length;
      const heardBefore = stack.stt.requests.length;
      stack.stt.say('Please book a table for two.');
      await user.say(await speech('Please book a table for two.'));
      const input = await backend.nextInput(new Set(), 60_000);
      expect(input.event).toEqual({
        id: expect.any(String),
        text: 'Please book a table for two.',
        modality: 'audio',
      });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.role === 'agent' && t.text === 'Booked.'),
        30_000,
        'the reply to the spoken turn',
      );
      const userTurn = user.transcripts().find((t) => t.role === 'user');
      expect(userTurn?.text).toBe('Please book a table for two.');
      // The spoken input's id is its persisted message's id.
      const turns = await new AgentSessions(stack.handle.db, {
        heartbeatTimeoutMs: 30_000,
      }).turns(session.started.sessionId);
      expect(turns.filter((t) => t.role === 'user').map((t) => t.id)).toEqual([input.event.id]);
      expect(userTurn?.id).toBe(input.event.id);
      expect(llm.requests.length).toBe(requestsBefore);
      // The Agent's voice is a built-in US English one: the recognizer is told so.
      const heard = stack.stt.requests.slice(heardBefore);
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.map((r) => r.language)).toEqual(heard.map(() => 'en'));
    } finally {
      await session.leave();
    }
  });

  it('updates the context without speech, speaks a requested update once per id, and drops queued updates on new input', async () => {
    const { llm, worker } = stack;
    const session = await stack.openSdk({ instructions: 'INSTRUCTIONS-A' }, modelAnswers);
    const { user, backend } = session;
    const { connection } = backend;
    try {
      // updateContext: nothing is said or asked of the model.
      const before = llm.requests.length;
      await connection.updateContext({
        instructions: 'INSTRUCTIONS-B: the user is a VIP.',
        messages: [{ role: 'system', content: 'The VIP lounge is open.' }],
      });
      expect(llm.requests.length).toBe(before);
      expect(user.transcripts()).toEqual([]);
      // ... and the next answer is made with it.
      llm.script({ text: ['Welcome', ' back.'] });
      await user.sendText('Hello?');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Welcome back.'),
        30_000,
        'the answer',
      );
      const messages = llmMessages(llm);
      expect(messages[0]).toMatchObject({
        role: 'system',
        content: 'INSTRUCTIONS-B: the user is a VIP.',
      });
      expect(messages).toContainEqual(
        expect.objectContaining({ role: 'system', content: 'The VIP lounge is open.' }),
      );

      // requestReply without instructions: onPrepareReply first, then spoken, resolved after
      // playout with what was heard.
      backend.handlers = {
        ...modelAnswers,
        onPrepareReply: ({ id }) => ({ instructions: `PREPARED ${id}: the table is ready.` }),
      };
      llm.script({ text: ['Your table', ' is ready.'] });
      const spoken = await connection.requestReply('update-1');
      expect(spoken).toEqual({
        id: 'update-1',
        interrupted: false,
        spokenText: 'Your table is ready.',
        completion: 'worker_playout',
      });
      expect(backend.of('prepare_reply').map((s) => s.event)).toEqual([{ id: 'update-1' }]);
      expect(JSON.stringify(llmMessages(llm))).toContain('PREPARED update-1: the table is ready.');
      // The same id again: the first outcome, nothing spoken or prepared again.
      const requestsAfter = llm.requests.length;
      expect(await connection.requestReply('update-1')).toEqual(spoken);
      expect(llm.requests.length).toBe(requestsAfter);
      expect(backend.of('prepare_reply')).toHaveLength(1);
      expect(user.transcripts().filter((t) => t.text === 'Your table is ready.')).toHaveLength(1);

      // A queued update (the Agent is busy speaking) is invalidated by new user input.
      backend.handlers = {
        onTranscript: () => {},
        onInput: (input) =>
          input.text === 'Tell me everything.'
            ? {
                action: 'reply',
                text: Array.from({ length: 8 }, (_, i) => `Part ${i + 1} of the menu.`).join(' '),
              }
            : { action: 'handled' },
      };
      const longFrom = performance.now();
      await user.sendText('Tell me everything.');
      await user.waitUntil(() => user.loudFramesSince(longFrom) > 20, 30_000, 'the long reply');
      const queued = connection
        .requestReply('update-2', { instructions: 'Say the dessert is ready.' })
        .then(
          (outcome) => ({ spoken: outcome }),
          (error: unknown) => ({ error }),
        );
      await backend.waitUntil(
        () =>
          worker.logs().find((l) => l.msg === 'spoken update queued' && l.reply_id === 'update-2'),
        30_000,
        'update-2 queued',
      );
      await user.sendText('Stop, never mind.');
      const settled = await queued;
      expect(settled).toEqual({ error: expect.any(ApplicationError) });
      expect((settled as { error: ApplicationError }).error.code).toBe('reply_invalidated');
    } finally {
      await session.leave();
    }
  });
});

// Application sessions end to end: the capability handshake both ways, the `input`,
// `transcript` and `prepare_reply` callbacks, and the commands that need no tools
// (update_context, request_reply). The backend is an rtc-node peer speaking
// docs/application-protocol.md; the end user types on lk.chat (one turn is spoken).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveSessions } from '../../../src/agents/live-sessions.ts';
import { speech } from '../../helpers/room-client.ts';
import { type ApplicationStack, llmMessages, startApplicationStack } from './harness.ts';

const DEADLINE_MS = 4000;

describe('application sessions: callbacks and commands (worker, livekit-server, api)', () => {
  let stack: ApplicationStack;

  beforeAll(async () => {
    stack = await startApplicationStack(DEADLINE_MS);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('asks the backend about each input before the model, and reports each persisted turn', async () => {
    const { llm } = stack;
    const session = await stack.open({
      instructions: 'INSTRUCTIONS-1: you are the booking desk.',
      history: [
        { role: 'user', content: 'I booked a table last week.' },
        { role: 'assistant', content: 'I see your booking.' },
      ],
    });
    const { user, backend } = session;
    try {
      // Transcripts are acknowledged as soon as they arrive.
      backend.autoAnswer = (request) =>
        request.type === 'transcript' ? { type: 'result', value: null } : undefined;
      const taken = new Set<string>();

      // handled: nothing is said and the model is not asked.
      const requestsBefore = llm.requests.length;
      await user.sendText('Is my table ready?');
      const first = await backend.nextRequest('input', 30_000, taken);
      taken.add(first.requestId);
      expect(first.body).toMatchObject({
        requestId: first.requestId,
        type: 'input',
        input: { text: 'Is my table ready?', modality: 'text' },
      });
      expect(first.attributes.requestId).toBe(first.requestId);
      await backend.respond(first.requestId, 'result', { action: 'handled' });

      // reply with text: spoken as is.
      await user.sendText('And the wine list?');
      const second = await backend.nextRequest('input', 30_000, taken);
      taken.add(second.requestId);
      await backend.respond(second.requestId, 'result', {
        action: 'reply',
        text: 'The wine list is on the table.',
      });
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
      const third = await backend.nextRequest('input', 30_000, taken);
      taken.add(third.requestId);
      await backend.respond(third.requestId, 'error', undefined, {
        code: 'not_mine',
        message: 'let the model answer',
      });
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

      // Each persisted turn reached the backend with its durable id.
      const turns = await new LiveSessions(stack.handle.db, {
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
          const transcripts = backend.requests.filter((r) => r.type === 'transcript');
          return transcripts.length >= turns.length ? transcripts : undefined;
        },
        30_000,
        'a transcript callback per turn',
      );
      expect(reported.map((r) => r.body.transcript)).toEqual(
        turns.map((t) => ({ id: t.id, role: t.role, text: t.text, interrupted: false })),
      );
      const published = user.transcripts().map((t) => t.id);
      expect(published).toEqual(turns.map((t) => t.id));
    } finally {
      await session.leave();
    }
  });

  it('asks about a spoken turn too (modality audio) before the model answers', async () => {
    const session = await stack.open({});
    const { user, backend } = session;
    try {
      stack.stt.say('Please book a table for two.');
      await user.say(await speech('Please book a table for two.'));
      const input = await backend.nextRequest('input', 60_000);
      expect(input.body.input).toMatchObject({
        text: 'Please book a table for two.',
        modality: 'audio',
      });
      await backend.respond(input.requestId, 'result', {
        action: 'reply',
        text: 'Booked.',
      });
      await user.waitUntil(
        () => user.transcripts().find((t) => t.role === 'agent' && t.text === 'Booked.'),
        30_000,
        'the reply to the spoken turn',
      );
      expect(user.transcripts().find((t) => t.role === 'user')?.text).toBe(
        'Please book a table for two.',
      );
    } finally {
      await session.leave();
    }
  });

  it('updates the context without speech, speaks a requested update once per id, and drops queued updates on new input', async () => {
    const { llm, worker } = stack;
    const session = await stack.open({ instructions: 'INSTRUCTIONS-A' });
    const { user, backend } = session;
    try {
      backend.autoAnswer = (request) => {
        if (request.type === 'transcript') return { type: 'result', value: null };
        if (request.type === 'input') {
          return { type: 'error', error: { code: 'not_mine', message: 'model answers' } };
        }
        return undefined;
      };
      // update_context: answered {} and nothing is said or asked of the model.
      const before = llm.requests.length;
      const updated = await backend.command('update_context', {
        instructions: 'INSTRUCTIONS-B: the user is a VIP.',
        messages: [{ role: 'system', content: 'The VIP lounge is open.' }],
      });
      expect(updated).toMatchObject({ type: 'result', value: {} });
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

      // request_reply without instructions: prepare_reply first, then spoken, answered after
      // playout with what was heard.
      backend.autoAnswer = (request) => {
        if (request.type === 'transcript') return { type: 'result', value: null };
        if (request.type === 'prepare_reply') {
          return { type: 'result', value: { instructions: 'PREPARED: the table is ready.' } };
        }
        return undefined;
      };
      llm.script({ text: ['Your table', ' is ready.'] });
      const spoken = await backend.command('request_reply', { id: 'update-1' });
      expect(spoken).toMatchObject({
        type: 'result',
        value: {
          id: 'update-1',
          interrupted: false,
          spokenText: 'Your table is ready.',
          completion: 'worker_playout',
        },
      });
      const prepares = backend.requests.filter((r) => r.type === 'prepare_reply');
      expect(prepares.map((r) => r.body.prepareReply)).toEqual([{ id: 'update-1' }]);
      expect(JSON.stringify(llmMessages(llm))).toContain('PREPARED: the table is ready.');
      // The same id again: the first outcome, nothing spoken or prepared again.
      const requestsAfter = llm.requests.length;
      const again = await backend.command('request_reply', { id: 'update-1' });
      expect(again.value).toEqual(spoken.value);
      expect(llm.requests.length).toBe(requestsAfter);
      expect(backend.requests.filter((r) => r.type === 'prepare_reply')).toHaveLength(1);
      expect(user.transcripts().filter((t) => t.text === 'Your table is ready.')).toHaveLength(1);

      // A queued update (the Agent is busy speaking) is invalidated by new user input.
      backend.autoAnswer = (request) => {
        if (request.type === 'transcript') return { type: 'result', value: null };
        if (request.type === 'input') {
          const text = (request.body.input as { text: string }).text;
          return text === 'Tell me everything.'
            ? {
                type: 'result',
                value: {
                  action: 'reply',
                  text: Array.from({ length: 8 }, (_, i) => `Part ${i + 1} of the menu.`).join(' '),
                },
              }
            : { type: 'result', value: { action: 'handled' } };
        }
        return undefined;
      };
      const longFrom = performance.now();
      await user.sendText('Tell me everything.');
      await user.waitUntil(() => user.loudFramesSince(longFrom) > 20, 30_000, 'the long reply');
      const queued = backend.command('request_reply', {
        id: 'update-2',
        instructions: 'Say the dessert is ready.',
      });
      await backend.waitUntil(
        () =>
          worker.logs().find((l) => l.msg === 'spoken update queued' && l.reply_id === 'update-2'),
        30_000,
        'update-2 queued',
      );
      await user.sendText('Stop, never mind.');
      expect(await queued).toMatchObject({
        type: 'error',
        error: { code: 'reply_invalidated' },
      });
    } finally {
      await session.leave();
    }
  });
});

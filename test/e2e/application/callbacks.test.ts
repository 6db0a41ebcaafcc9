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
});

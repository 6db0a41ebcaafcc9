// An application session survives its job's crash: the job process is killed with SIGKILL
// while the backend works on a tool call; the api dispatches the Agent again, the new job
// resumes the conversation, and the backend (backend-sdk) sees the interruption as one
// `interruption` callback, which cancels the lost job's pending tool call (`worker_lost`);
// then the session goes on, its callbacks reaching the same backend connection. The
// backend's `update_context` changes made before the crash are in effect in the new job:
// its model is asked with the context the lost job's model was (the last instructions, every
// appended message where it was).

import { describe, expect } from 'vitest';
import { CallCancelledError } from '../../../backend-sdk/src/application/index.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import { type ApplicationStack, applicationTest, declaredTool, llmMessages } from './harness.ts';
import { modelAnswers } from './sdk-backend.ts';

const it = applicationTest(60_000);

describe('application sessions: a lost job (backend-sdk, worker, livekit-server, api)', () => {
  let stack: ApplicationStack;

  it.beforeAll(async ({ stack: started }) => {
    stack = started;
  }, 180_000);

  it('tells the backend once, cancels the lost job’s pending tool call, and goes on with the backend’s context updates in effect', async () => {
    const { llm, worker } = stack;
    const session = await stack.openSdk({ tools: [declaredTool('check_menu')] });
    const { user, backend } = session;
    const aborted: unknown[] = [];
    backend.handlers = {
      ...modelAnswers,
      // The menu never comes: the call is pending when the job dies.
      onTool: (_call, { signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            aborted.push(signal.reason);
            reject(signal.reason);
          });
        }),
    };
    const sessionId = session.started.sessionId;
    try {
      // Two context updates: the second's instructions replace the first's; both messages
      // are appended.
      await backend.connection.updateContext({
        instructions: 'INSTRUCTIONS-A: the kitchen is open.',
        messages: [{ role: 'system', content: 'CONTEXT-1: table 4 is booked.' }],
      });
      await backend.connection.updateContext({
        instructions: 'INSTRUCTIONS-B: the kitchen closes at ten.',
        messages: [{ role: 'system', content: 'CONTEXT-2: the guest is vegetarian.' }],
      });
      llm.script({
        text: ['One', ' moment,', ' I', ' check', ' the', ' menu.'],
        toolCalls: [{ id: 'call_menu', name: 'check_menu', arguments: '{}' }],
      });
      llm.script({ text: ['Sorry,', ' I', ' lost', ' you', ' for', ' a', ' moment.'] });
      const askedAt = performance.now();
      await user.sendText('What is on the menu?');
      const menuCall = await backend.tool('call_menu');
      const contextOf = (index?: number) =>
        llmMessages(llm, index).map((m) => ({ role: m.role, content: m.content }));
      const lostContext = contextOf();
      expect(lostContext).toEqual([
        { role: 'system', content: 'INSTRUCTIONS-B: the kitchen closes at ten.' },
        { role: 'system', content: 'CONTEXT-1: table 4 is booked.' },
        { role: 'system', content: 'CONTEXT-2: the guest is vegetarian.' },
        { role: 'user', content: 'What is on the menu?' },
      ]);
      await user.waitUntil(() => user.loudFramesSince(askedAt) > 10, 30_000, 'agent audio');
      const job = worker
        .logs()
        .find((l) => l.msg === 'session job started' && l.session_id === sessionId);
      const killedAt = performance.now();
      process.kill(job?.pid as number, 'SIGKILL');
      const lastBefore = user.lastAgentSpeechAt(killedAt);

      // One interruption; the pending call is cancelled with worker_lost, before it.
      await backend.waitUntil(
        () => backend.of('interruption').length === 1,
        30_000,
        'the interruption callback',
      );
      expect(backend.of('interruption').map((s) => s.event)).toEqual([{ reason: 'worker_lost' }]);
      expect(aborted).toHaveLength(1);
      expect(aborted[0]).toBeInstanceOf(CallCancelledError);
      expect(backend.cancels).toEqual([{ requestId: menuCall.requestId, reason: 'worker_lost' }]);

      // The new job answers the question the lost one was answering, and is heard.
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === 'Sorry, I lost you for a moment.'),
        45_000,
        'the resumed answer',
      );
      // The resumed job's model was asked with the lost job's context, then what followed.
      expect(contextOf().slice(0, lostContext.length)).toEqual(lostContext);
      const firstAfter = await user.agentHeardAgainAfter(killedAt);
      console.log(
        `application hand-over gap: last agent audio before the kill to first after: ${Math.round(firstAfter - lastBefore)} ms`,
      );

      // The conversation goes on through the same backend connection: the next input is
      // the backend's to decide, its answer is persisted and reported.
      const inputsBefore = backend.of('input').length;
      await user.sendText('Thanks anyway.');
      await user.waitUntil(
        () => user.transcripts().find((t) => t.text === DEFAULT_TEXT.join('')),
        30_000,
        'the next answer',
      );
      expect(
        backend
          .of('input')
          .slice(inputsBefore)
          .map((s) => s.event.text),
      ).toEqual(['Thanks anyway.']);
      await backend.waitUntil(
        () => backend.of('transcript').some((s) => s.event.text === DEFAULT_TEXT.join('')),
        15_000,
        'the answer’s transcript callback',
      );
      expect(backend.of('interruption')).toHaveLength(1);
    } finally {
      await session.leave();
    }
  }, 240_000);
});

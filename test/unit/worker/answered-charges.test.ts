import { describe, expect, it } from 'vitest';
import { AnsweredCharges } from '../../../worker/agent-session/answered-charges.ts';

/** Charges whose question is in `conversation`, and the log of what was charged. */
function ledger(conversation: Set<string>) {
  const charged: string[] = [];
  const charges = new AnsweredCharges((id) => conversation.has(id));
  const call = (messageId: string | undefined, name: string) =>
    charges.answered(messageId, () => charged.push(name));
  return { charges, charged, call };
}

describe('AnsweredCharges (model calls charged once their question is in the conversation)', () => {
  it('charges at once a call answering no user message (a greeting) or one already in it', () => {
    const { charged, call } = ledger(new Set(['user-1']));
    call(undefined, 'greeting');
    call('user-1', 'answer to user-1');
    expect(charged).toEqual(['greeting', 'answer to user-1']);
  });

  it('holds a preemptive call until its question is committed, then charges it once', () => {
    const conversation = new Set<string>();
    const { charges, charged, call } = ledger(conversation);
    call('user-2', 'preemptive answer');
    expect(charged).toEqual([]);
    conversation.add('user-2');
    charges.committed('user-2');
    expect(charged).toEqual(['preemptive answer']);
    charges.committed('user-2');
    expect(charged).toEqual(['preemptive answer']);
  });

  it('never charges a call whose question was discarded (the user spoke on)', () => {
    const conversation = new Set<string>();
    const { charges, charged, call } = ledger(conversation);
    call('partial', 'answer to the first part');
    call('whole', 'answer to the whole question');
    conversation.add('whole');
    charges.committed('whole');
    expect(charged).toEqual(['answer to the whole question']);
  });

  it('charges every call that answered a committed question (a tool step after the answer)', () => {
    const { charges, charged, call } = ledger(new Set());
    call('user-3', 'first step');
    call('user-3', 'second step');
    charges.committed('user-3');
    expect(charged).toEqual(['first step', 'second step']);
  });

  it('keeps at most 16 questions waiting: the oldest discarded ones are dropped', () => {
    const { charges, charged, call } = ledger(new Set());
    for (let i = 0; i < 17; i++) call(`q${i}`, `answer ${i}`);
    charges.committed('q0');
    charges.committed('q1');
    charges.committed('q16');
    expect(charged).toEqual(['answer 1', 'answer 16']);
  });
});

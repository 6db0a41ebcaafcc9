import { describe, expect, it } from 'vitest';
import {
  fitHistory,
  HISTORY_MESSAGES,
  historyMessages,
  type StoredToolRound,
  TOOL_HISTORY_MAX_CHARS,
} from '../../../src/conversations/tool-history.ts';

function round(id: string, output = '{"ok":true}'): StoredToolRound {
  return {
    text: `Checking ${id}. `,
    calls: [{ id, name: 'web_search', arguments: '{"query":"q"}', output, ok: true }],
  };
}

const user = (text: string) => ({ role: 'user' as const, text, toolRounds: null });
const answer = (text: string, rounds: StoredToolRound[] | null = null) => ({
  role: 'assistant' as const,
  text,
  toolRounds: rounds,
});

describe('historyMessages', () => {
  it('puts each round before its results and ends with the rest of the text', () => {
    const rounds = [round('a'), round('b')];
    expect(
      historyMessages({
        role: 'assistant',
        text: 'Checking a. Checking b. Done.',
        toolRounds: rounds,
      }),
    ).toEqual([
      {
        role: 'assistant',
        content: 'Checking a. ',
        toolCalls: [{ id: 'a', name: 'web_search', arguments: '{"query":"q"}' }],
      },
      { role: 'tool', toolCallId: 'a', content: '{"ok":true}' },
      {
        role: 'assistant',
        content: 'Checking b. ',
        toolCalls: [{ id: 'b', name: 'web_search', arguments: '{"query":"q"}' }],
      },
      { role: 'tool', toolCallId: 'b', content: '{"ok":true}' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('sends an answer without rounds as its text', () => {
    expect(historyMessages({ role: 'assistant', text: 'Checking a. Done.' })).toEqual([
      { role: 'assistant', content: 'Checking a. Done.' },
    ]);
  });
});

describe('fitHistory', () => {
  it('keeps the rounds of answers that fit', () => {
    const rounds = [round('a')];
    expect(fitHistory([user('Hi'), answer('Checking a. Yes.', rounds)])).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Checking a. Yes.', toolRounds: rounds },
    ]);
  });

  it('replays older answers as text once the results exceed the character budget', () => {
    const big = 'x'.repeat(TOOL_HISTORY_MAX_CHARS / 2);
    const oldest = [round('a', big)];
    const older = [round('b', big)];
    const newest = [round('c', big)];
    const fitted = fitHistory([
      answer('Checking a. A.', oldest),
      answer('Checking b. B.', older),
      answer('Checking c. C.', newest),
    ]);
    // The newest fits; the next would pass the budget, so it and every older one go as text.
    expect(fitted).toEqual([
      { role: 'assistant', text: 'Checking a. A.' },
      { role: 'assistant', text: 'Checking b. B.' },
      { role: 'assistant', text: 'Checking c. C.', toolRounds: newest },
    ]);
    const messages = fitted.flatMap(historyMessages);
    expect(messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', toolCallId: 'c', content: big },
    ]);
  });

  it('counts replayed calls and results against the message cap', () => {
    const plain = Array.from({ length: HISTORY_MESSAGES - 2 }, (_, i) =>
      i % 2 === 0 ? user(`u${i}`) : answer(`a${i}`),
    );
    const fitted = fitHistory([user('first'), answer('Checking a. A.', [round('a')]), ...plain]);
    // Its call and result would pass the cap by one: the answer goes as text alone, and
    // the message before it takes the last place.
    expect(fitted).toHaveLength(HISTORY_MESSAGES);
    expect(fitted.slice(0, 2)).toEqual([
      { role: 'user', text: 'first' },
      { role: 'assistant', text: 'Checking a. A.' },
    ]);
    expect(fitted.flatMap(historyMessages)).toHaveLength(HISTORY_MESSAGES);
  });
});

import { describe, expect, it } from 'vitest';
import { emptyCard } from '../../../src/agents/character-card.ts';
import {
  parseExamples,
  promptNames,
  renderCardPrompt,
  renderOpeningMessage,
  renderSystemPrompt,
  substituteNames,
} from '../../../src/conversations/prompt.ts';

function card(fields: Partial<Record<string, string>>) {
  const data = emptyCard('Clara').data;
  return { ...data, ...fields };
}

const names = { char: 'Clara', user: 'Sam' };

describe('substituteNames', () => {
  it('replaces {{char}} and {{user}} in any case, with inner spaces, and the legacy tags', () => {
    expect(
      substituteNames(
        '{{char}} greets {{user}}; {{ Char }} / {{USER}} / <BOT> <CHAR> <USER>',
        names,
      ),
    ).toBe('Clara greets Sam; Clara / Sam / Clara Clara Sam');
  });

  it('leaves lower-case legacy tags and unknown macros alone, and never substitutes twice', () => {
    expect(substituteNames('<user> {{random}} {{user}}', { char: 'C', user: '{{char}}' })).toBe(
      '<user> {{random}} {{char}}',
    );
  });
});

describe('promptNames', () => {
  it('uses the card name and the end user name, else the defaults', () => {
    expect(promptNames(card({}), 'Sam')).toEqual({ char: 'Clara', user: 'Sam' });
    expect(promptNames(card({ name: '  ' }), undefined)).toEqual({
      char: 'Assistant',
      user: 'User',
    });
    expect(promptNames(card({}), '   ')).toEqual({ char: 'Clara', user: 'User' });
  });
});

describe('parseExamples', () => {
  it('splits <START> blocks into labelled turns with continuation lines and narration', () => {
    const text = [
      '<START>',
      '{{user}}: Hi there.',
      '{{char}}: Welcome to the hotel!',
      'How can I help?',
      '<START>',
      '*The lobby is quiet.*',
      'Sam: Is breakfast included?',
      'Clara: Yes, from seven.',
      '<START>',
      '   ',
    ].join('\n');
    expect(parseExamples(text, names)).toEqual([
      [
        { speaker: 'user', text: 'Hi there.' },
        { speaker: 'char', text: 'Welcome to the hotel!\nHow can I help?' },
      ],
      [
        { speaker: 'narration', text: '*The lobby is quiet.*' },
        { speaker: 'user', text: 'Is breakfast included?' },
        { speaker: 'char', text: 'Yes, from seven.' },
      ],
    ]);
  });

  it('reads text without <START> as one exchange and returns none for an empty field', () => {
    expect(parseExamples('{{user}}: a\n{{char}}: b', names)).toEqual([
      [
        { speaker: 'user', text: 'a' },
        { speaker: 'char', text: 'b' },
      ],
    ]);
    expect(parseExamples('', names)).toEqual([]);
  });
});

describe('renderSystemPrompt', () => {
  it('uses a default main prompt with the description, personality and scenario', () => {
    const c = card({
      description: '{{char}} is the concierge of the Grand Hotel.',
      personality: 'calm, precise',
      scenario: '{{user}} arrives late at night.',
    });
    expect(renderSystemPrompt(c, names)).toBe(
      [
        'You are Clara. Stay in character and reply to Sam as Clara would.',
        'Clara is the concierge of the Grand Hotel.',
        "Clara's personality: calm, precise",
        'Scenario: Sam arrives late at night.',
      ].join('\n\n'),
    );
  });

  it("replaces the main prompt with the card's system_prompt, {{original}} standing for the default", () => {
    expect(renderSystemPrompt(card({ system_prompt: 'Greet {{user}} briefly.' }), names)).toBe(
      'Greet Sam briefly.',
    );
    expect(renderSystemPrompt(card({ system_prompt: '{{original}} Be brief.' }), names)).toBe(
      'You are Clara. Stay in character and reply to Sam as Clara would. Be brief.',
    );
  });
});

describe('renderCardPrompt', () => {
  const full = card({
    system_prompt: 'You are {{char}}, talking with {{user}}.',
    description: 'A calm hotel concierge.',
    first_mes: 'Good evening, {{user}}! I am {{char}}.',
    mes_example: '<START>\n{{user}}: Hi.\n{{char}}: Hello, {{user}}.\n<START>\n{{user}}: Bye.',
    post_history_instructions: 'Answer as {{char}} in one sentence. {{original}}',
  });

  it('renders system prompt, examples, history and post-history instructions in order', () => {
    const opening = renderOpeningMessage(full, promptNames(full, 'Sam'));
    expect(opening).toBe('Good evening, Sam! I am Clara.');
    expect(
      renderCardPrompt(full, {
        userName: 'Sam',
        history: [
          { role: 'assistant', text: opening ?? '' },
          { role: 'user', text: 'Is the bar open? {{char}}' },
        ],
      }),
    ).toEqual([
      {
        role: 'system',
        content: 'You are Clara, talking with Sam.\n\nA calm hotel concierge.',
      },
      {
        role: 'system',
        content: [
          'Example exchanges showing how Clara speaks (they are not part of this conversation):',
          '<example>\nSam: Hi.\nClara: Hello, Sam.\n</example>',
          '<example>\nSam: Bye.\n</example>',
        ].join('\n\n'),
      },
      { role: 'assistant', content: 'Good evening, Sam! I am Clara.' },
      // What the end user typed is never rewritten.
      { role: 'user', content: 'Is the bar open? {{char}}' },
      { role: 'system', content: 'Answer as Clara in one sentence.' },
    ]);
  });

  it('renders a bare card as one system message and the history, with User as the name', () => {
    expect(
      renderCardPrompt(card({}), { userName: null, history: [{ role: 'user', text: 'Hi' }] }),
    ).toEqual([
      {
        role: 'system',
        content: 'You are Clara. Stay in character and reply to User as Clara would.',
      },
      { role: 'user', content: 'Hi' },
    ]);
    expect(renderOpeningMessage(card({ first_mes: '  ' }), names)).toBeUndefined();
  });
});

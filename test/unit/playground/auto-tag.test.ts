import { describe, expect, it } from 'vitest';
import { autoTag, splitSentences } from '../../../src/playground/auto-tag.ts';

describe('Auto Tag', () => {
  it.each([
    [
      'Haha, that was close. Did you see it?',
      '[laughs] Haha, that was close. [curious] Did you see it?',
    ],
    [
      'We won the cup! I can’t believe it. Wow, really?',
      '[excited] We won the cup! I can’t believe it. [surprised] Wow, really?',
    ],
    ['You did what?!', '[surprised] You did what?!'],
    [
      'Ugh, the train is late again. Oh well.',
      '[sighs] Ugh, the train is late again. [sighs] Oh well.',
    ],
    [
      'Between you and me, the boss is leaving. I will miss him.',
      '[whispers] Between you and me, the boss is leaving. [sad] I will miss him.',
    ],
    ['“Fantastic!” she said. Then she left.', '[excited] “Fantastic!” she said. Then she left.'],
    ['I wonder where it went', '[curious] I wonder where it went'],
  ])('tags %j', (input, expected) => {
    expect(autoTag(input)).toBe(expected);
  });

  it('leaves sentences that already hold a tag as they are and tags the others', () => {
    expect(autoTag('[whispers] Keep it down! I am so sorry.')).toBe(
      '[whispers] Keep it down! [sad] I am so sorry.',
    );
    expect(autoTag('[sighs... deeply] Fine. Are you done?')).toBe(
      '[sighs... deeply] Fine. [curious] Are you done?',
    );
  });

  it('keeps neutral text, numbers and spacing byte for byte', () => {
    const plain = 'The meeting lasts 3.5 hours.  Bring the report.\n\nThanks';
    expect(autoTag(plain)).toBe(plain);
    expect(autoTag('')).toBe('');
    expect(autoTag('  \n ')).toBe('  \n ');
  });

  it('reads full-width punctuation and line breaks in any script', () => {
    expect(autoTag('你好！\n今天怎么样？')).toBe('[excited] 你好！\n[curious] 今天怎么样？');
    expect(autoTag('Line one\nAre we there yet?\n')).toBe(
      'Line one\n[curious] Are we there yet?\n',
    );
  });

  it('gives the same answer every time', () => {
    const text = 'Wow! Haha. Why? Sorry. Shh, it is a secret.';
    const expected =
      '[excited] Wow! [laughs] Haha. [curious] Why? [sad] Sorry. [whispers] Shh, it is a secret.';
    expect(autoTag(text)).toBe(expected);
    expect(autoTag(text)).toBe(expected);
  });

  it('cuts text into sentences that join back into it exactly', () => {
    const text = ' One. Two?! “Three…” [four. five] six\r\nseven 8.5 nine';
    const pieces = splitSentences(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toEqual([
      ' One.',
      ' Two?!',
      ' “Three…”',
      ' [four. five] six\r\n',
      'seven 8.5 nine',
    ]);
  });
});

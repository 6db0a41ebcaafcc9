import { describe, expect, it } from 'vitest';
import {
  sanitizeVoiceTag,
  sanitizeVoiceTags,
} from '../../../../src/tts/providers/upstream/index.ts';

describe('sanitizeVoiceTag', () => {
  it('keeps ordinary tags as they are', () => {
    expect(sanitizeVoiceTag('whispering')).toBe('whispering');
    expect(sanitizeVoiceTag('laughing nervously')).toBe('laughing nervously');
    expect(sanitizeVoiceTag('低声说')).toBe('低声说');
  });

  it.each([
    ['sad] [angry', 'sad angry'],
    ['happy) (shouting', 'happy shouting'],
    ['<|speaker:1|>', '|speaker:1|'],
    ['{{template}}', 'template'],
    ['<break time="3s"/>', 'break time="3s"/'],
  ])('removes markup characters: %j → %j', (tag, clean) => {
    expect(sanitizeVoiceTag(tag)).toBe(clean);
  });

  it('turns control characters into spaces and collapses whitespace', () => {
    expect(sanitizeVoiceTag(' soft\u0000ly\r\n\tsaid\u2028now  ')).toBe('soft ly said now');
  });
});

describe('sanitizeVoiceTags', () => {
  it('drops tags left empty and repeats, keeping order', () => {
    expect(sanitizeVoiceTags(['[]', 'calm', '()', 'calm', 'warm'])).toEqual(['calm', 'warm']);
    expect(sanitizeVoiceTags(undefined)).toEqual([]);
  });
});

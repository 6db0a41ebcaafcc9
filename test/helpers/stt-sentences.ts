/**
 * Sentences spoken by espeak-ng (en-us) for the speech-to-text tests and bench/stt.ts:
 * everyday requests to a voice agent, no digits (a recognizer may write "3" for "three").
 * The first is the 2-3 s utterance the latency numbers use.
 */
export const STT_SENTENCES: readonly string[] = [
  'What is the weather like today in Paris?',
  'Please book a table for two at seven tonight.',
  'Can you remind me to call my mother tomorrow morning?',
  'I would like to cancel my subscription.',
  'Turn off the lights in the kitchen.',
  'How long does it take to drive to the airport?',
  'Send a message to John saying I will be late.',
  'What time does the pharmacy close on Sunday?',
  'Play some relaxing music in the living room.',
  'My order arrived damaged and I need a refund.',
  'Tell me a short story about a brave little dog.',
  'Is there a train to London after nine in the evening?',
];

/**
 * Questions spoken in two parts with a pause between them (test/helpers/room-client.ts,
 * `withPause`): the agent must wait for the whole question, and a model asked at the
 * pause answers only the first part.
 */
export const PAUSED_QUESTIONS: readonly (readonly [string, string])[] = [
  ['What is the weather like', 'today in Paris?'],
  ['How long does it take', 'to drive to the airport?'],
  ['Can you remind me to call my mother', 'tomorrow morning?'],
  ['Send a message to John', 'saying I will be late.'],
];

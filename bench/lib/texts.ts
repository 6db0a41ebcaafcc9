/** The texts every benchmark row speaks, so rows compare like with like. */

/** One sentence, as a chat reply or a notification would send. */
export const SHORT_TEXT = 'Your order has shipped and will arrive on Thursday afternoon.';

const PARAGRAPH =
  'The library opens at nine in the morning and closes at six in the evening, except on ' +
  'public holidays. Members may borrow up to twelve books at a time, for three weeks each, ' +
  'and renew them twice online unless another reader has reserved them. The reading room on ' +
  'the second floor is quiet and has power outlets at every desk. ';

/** Exactly 2,000 characters of plain English prose. */
export const LONG_TEXT = PARAGRAPH.repeat(Math.ceil(2000 / PARAGRAPH.length)).slice(0, 2000);

/** The voice every row uses (espeak-ng voice of the catalog's first English voice). */
export const BENCH_ESPEAK_VOICE = 'en-us+f3';

/** Utterances of a voice agent's turns, a few seconds of speech each. */
export const UTTERANCES = [
  'Sure, I can help with that. Your appointment is confirmed for Tuesday at ten.',
  'The package left our warehouse this morning and should reach you in two days.',
  'I did not catch the last part. Could you repeat the account number, please?',
  'Thanks for waiting. I found three flights that match, the earliest leaves at seven.',
];

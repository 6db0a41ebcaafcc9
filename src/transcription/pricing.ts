import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';

/**
 * Audio whose cost a session holds ahead of it: credit is reserved in steps of this much
 * audio, so a session costs one database write per 10 s of audio, and the balance decides
 * before the audio is transcribed.
 */
export const RESERVE_AHEAD_MS = 10_000;

/** The `cost` object of `finish` and of session reads. */
export interface TranscriptionCost {
  credits: number;
  amount: number;
  currency: 'USD';
  pass_through: false;
}

export function transcriptionCost(millicredits: number): TranscriptionCost {
  return {
    credits: millicredits / MILLICREDITS_PER_CREDIT,
    amount: millicredits / (1000 * MILLICREDITS_PER_CREDIT),
    currency: 'USD',
    pass_through: false,
  };
}

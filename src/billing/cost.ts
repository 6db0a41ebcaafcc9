import type { RoutePricing } from '../voices/catalog.ts';

/** 1 credit = 1,000 millicredits; 1,000 credits = 1 USD. */
export const MILLICREDITS_PER_CREDIT = 1000;
const MILLICREDITS_PER_USD = 1000 * MILLICREDITS_PER_CREDIT;

/** Cost of `chars` characters at `millicreditsPer1kChars`, rounded up to a whole millicredit. */
export function costMillicredits(chars: number, millicreditsPer1kChars: number): number {
  return Math.ceil((chars * millicreditsPer1kChars) / 1000);
}

/** The `cost` object of a `finish` event. */
export interface PublicCost {
  amount: number;
  currency: 'USD';
  pass_through: boolean;
}

export function publicCost(costMillicreditsValue: number, pricing: RoutePricing): PublicCost {
  return {
    amount: costMillicreditsValue / MILLICREDITS_PER_USD,
    currency: 'USD',
    pass_through: pricing.passThrough,
  };
}

import { MILLICREDITS_PER_CREDIT, type RoutePricing } from './pricing.ts';

const MILLICREDITS_PER_USD = 1000 * MILLICREDITS_PER_CREDIT;

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

export const ENVIRONMENTS = ['production', 'development'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

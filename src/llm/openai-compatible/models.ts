/**
 * OpenAI reasoning models (o-series, gpt-5 family): they accept `reasoning_effort`, take
 * `max_completion_tokens` instead of `max_tokens`, and refuse a `temperature` other than 1.
 * Kept free of the SDK so the catalog can use it without loading the adapter.
 */
export function isOpenAiReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}

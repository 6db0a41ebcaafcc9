import type { z } from 'zod';
import { ApiError, unsupportedMediaTypeError } from '../errors.ts';

/** Parses a JSON request body; malformed JSON is `invalid_request`. */
export function parseJsonBody(body: Buffer, contentType: string | undefined): unknown {
  if (contentType && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
    throw unsupportedMediaTypeError('The request body must be application/json.');
  }
  if (body.byteLength === 0) {
    throw new ApiError('invalid_request', 'A JSON request body is required.');
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', 'The request body is not valid JSON.');
  }
}

/**
 * Validates a value against a route schema. The detail names each failing field and why,
 * never the submitted value.
 */
export function validate<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : where;
    if (issue.code === 'unrecognized_keys') {
      const prefix = issue.path.length > 0 ? `${issue.path.join('.')}.` : '';
      return `unknown field ${issue.keys.map((k) => `"${prefix}${k}"`).join(', ')}`;
    }
    return `${field}: ${issue.message}`;
  });
  throw new ApiError('invalid_request', problems.join('; '));
}

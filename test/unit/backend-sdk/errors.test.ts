// The SDK's error classes cover exactly the service's error codes, with the same statuses
// and default retryability, and map error objects to the right class.
import { describe, expect, it } from 'vitest';
import {
  API_ERROR_CLASSES,
  AwpError,
  apiError,
  ConflictError,
  InvalidRequestError,
  ProviderError,
  RateLimitedError,
} from '../../../backend-sdk/src/index.ts';
import { splitText } from '../../../backend-sdk/src/tts/text.ts';
import { ERROR_CODES } from '../../../src/errors.ts';

describe('SDK error classes', () => {
  it('has one class per service error code, with its status and default retryable', () => {
    const sdk = Object.fromEntries(
      Object.entries(API_ERROR_CLASSES).map(([code, entry]) => [
        code,
        { status: entry.status, retryable: entry.retryable, fallback: entry.fallback },
      ]),
    );
    const service = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, entry]) => [
        code,
        {
          status: entry.status,
          retryable: entry.retryable,
          fallback: 'fallback' in entry ? entry.fallback : undefined,
        },
      ]),
    );
    expect(sdk).toEqual(service);
    const classes = new Set(Object.values(API_ERROR_CLASSES).map((entry) => entry.type));
    expect(classes.size).toBe(Object.keys(ERROR_CODES).length);
  });

  it('maps an error object to its class with every field', () => {
    const error = apiError(
      {
        event: 'error',
        request_id: 'req-1',
        code: 'rate_limited',
        retryable: true,
        detail: 'slow down',
      },
      { status: 429, retryAfterMs: 2_000 },
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toBeInstanceOf(AwpError);
    expect({
      name: error.name,
      code: error.code,
      status: error.status,
      requestId: error.requestId,
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
      detail: error.detail,
      message: error.message,
    }).toEqual({
      name: 'RateLimitedError',
      code: 'rate_limited',
      status: 429,
      requestId: 'req-1',
      retryable: true,
      retryAfterMs: 2_000,
      detail: 'slow down',
      message: '429 rate_limited: slow down',
    });
  });

  it('maps invalid_request to the class of its status: 413 and 415 are subclasses', () => {
    const of = (status: number) =>
      apiError(
        { event: 'error', request_id: 'r', code: 'invalid_request', retryable: false },
        { status },
      );
    expect([of(400), of(413), of(415)].map((e) => [e.constructor.name, e.status])).toEqual([
      ['InvalidRequestError', 400],
      ['PayloadTooLargeError', 413],
      ['UnsupportedMediaTypeError', 415],
    ]);
    expect(of(413)).toBeInstanceOf(InvalidRequestError);
    expect(of(415)).toBeInstanceOf(InvalidRequestError);
  });

  it('keeps the service’s retryable flag over the code’s default', () => {
    const error = apiError({
      event: 'error',
      request_id: 'r',
      code: 'provider_error',
      retryable: true,
    });
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(502);
  });

  it('maps unknown codes to the base class', () => {
    const error = apiError({
      event: 'error',
      request_id: 'r',
      code: 'brand_new_code',
      retryable: false,
    });
    expect(error.constructor).toBe(AwpError);
    expect(error.code).toBe('brand_new_code');
    expect(error.status).toBeUndefined();
    expect(
      apiError({ event: 'error', request_id: 'r', code: 'conflict', retryable: false }),
    ).toBeInstanceOf(ConflictError);
  });
});

describe('splitText', () => {
  it('keeps text within the limit whole', () => {
    expect(splitText('Hello there.', 20)).toEqual(['Hello there.']);
    expect(splitText('', 20)).toEqual([]);
  });

  it('cuts after whitespace so words stay whole, and joins back to the text', () => {
    const text = 'alpha beta gamma delta epsilon';
    const pieces = splitText(text, 12);
    expect(pieces).toEqual(['alpha beta ', 'gamma delta ', 'epsilon']);
    expect(pieces.join('')).toBe(text);
  });

  it('counts code points, not UTF-16 units, and cuts a word longer than the limit', () => {
    const text = '😀'.repeat(7);
    const pieces = splitText(text, 3);
    expect(pieces).toEqual(['😀😀😀', '😀😀😀', '😀']);
    expect(splitText('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
  });
});

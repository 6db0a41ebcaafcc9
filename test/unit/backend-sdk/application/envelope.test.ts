// The envelope and serialization rules of backend-sdk application sessions: what a value
// travels as, the 256,000-character limit on both sides, reading received bodies, and the
// shapes the worker expects back from each callback.

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wireError } from '../../../../backend-sdk/src/application/dispatcher.ts';
import {
  ApplicationError,
  decodeEnvelope,
  ENVELOPE_MAX_CHARS,
  encodeEnvelope,
  RequestLedger,
  type ResultSink,
  readRequest,
  resultValue,
  toJsonValue,
} from '../../../../backend-sdk/src/application/index.ts';

function refusal(run: () => unknown): ApplicationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationError);
    return error as ApplicationError;
  }
  throw new Error('expected a refusal');
}

describe('toJsonValue', () => {
  it('turns an undefined result into null and keeps JSON values as they are', () => {
    expect(toJsonValue(undefined)).toBeNull();
    const value = { a: [1, 'two', true, null, { b: -0.5 }], c: '' };
    expect(toJsonValue(value)).toEqual(value);
  });

  it('follows JSON for undefined members, array holes and toJSON', () => {
    expect(toJsonValue({ keep: 1, drop: undefined })).toEqual({ keep: 1 });
    expect(toJsonValue([1, undefined, 3])).toEqual([1, null, 3]);
    expect(toJsonValue({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    expect(toJsonValue(Object.assign(Object.create(null), { x: 1 }))).toEqual({ x: 1 });
  });

  it.each([
    ['a bigint', { n: 10n }, '$.n is a bigint'],
    ['a function', { f: () => 1 }, '$.f is a function'],
    ['a symbol', [Symbol('s')], '$[0] is a symbol'],
    ['NaN', { x: { y: Number.NaN } }, '$.x.y is NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, '$ is Infinity'],
    ['a Map', { m: new Map([[1, 2]]) }, '$.m is a Map, not a plain object'],
    ['a class instance', { e: new (class Booking {})() }, '$.e is a Booking, not a plain object'],
  ])('refuses %s with invalid_result naming the path', (_what, value, path) => {
    const error = refusal(() => toJsonValue(value));
    expect(error.code).toBe('invalid_result');
    expect(error.message).toBe(`the value is not JSON-serializable: ${path}`);
  });

  it('refuses a cycle but accepts the same object twice side by side', () => {
    const shared = { x: 1 };
    expect(toJsonValue({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(refusal(() => toJsonValue(cyclic)).message).toContain('$.self is a circular reference');
  });
});

describe('encodeEnvelope / decodeEnvelope', () => {
  const requestId = randomUUID();
  // The JSON text of {"requestId":"<uuid>","value":"<pad>"} is 63 characters plus the pad.
  const bodyOfLength = (length: number) => ({ requestId, value: 'p'.repeat(length - 63) });

  it('sends a body of exactly 256,000 characters and refuses one more', () => {
    expect(JSON.stringify(bodyOfLength(ENVELOPE_MAX_CHARS))).toHaveLength(ENVELOPE_MAX_CHARS);
    expect(encodeEnvelope(bodyOfLength(ENVELOPE_MAX_CHARS))).toHaveLength(ENVELOPE_MAX_CHARS);
    const error = refusal(() => encodeEnvelope(bodyOfLength(ENVELOPE_MAX_CHARS + 1)));
    expect(error.code).toBe('payload_too_large');
    expect(error.requestId).toBe(requestId);
  });

  it('counts characters, not bytes', () => {
    const body = { requestId, value: 'é'.repeat(ENVELOPE_MAX_CHARS - 63) };
    expect(encodeEnvelope(body)).toHaveLength(ENVELOPE_MAX_CHARS);
  });

  it('reads a body whose requestId matches the stream attribute', () => {
    const text = JSON.stringify({ requestId, type: 'tool' });
    expect(decodeEnvelope(text, requestId)).toEqual({ requestId, type: 'tool' });
  });

  it.each([
    [
      'too long',
      JSON.stringify(bodyOfLength(ENVELOPE_MAX_CHARS + 1)),
      requestId,
      'payload_too_large',
    ],
    ['not JSON', '{"requestId":', requestId, 'invalid_request'],
    ['an array', '[]', requestId, 'invalid_request'],
    ['without a UUID requestId', JSON.stringify({ requestId: 'r1' }), 'r1', 'invalid_request'],
    [
      'of another requestId than its attribute',
      JSON.stringify({ requestId }),
      randomUUID(),
      'invalid_request',
    ],
    ['without the attribute', JSON.stringify({ requestId }), undefined, 'invalid_request'],
  ])('refuses a body %s', (_what, text, attribute, code) => {
    expect(refusal(() => decodeEnvelope(text, attribute)).code).toBe(code);
  });
});

describe('callback bodies', () => {
  const requestId = randomUUID();

  it('reads each callback type into its typed event', () => {
    expect(
      readRequest({
        requestId,
        type: 'tool',
        tool: { callId: 'c', name: 'n', arguments: { a: 1 } },
      }),
    ).toEqual({
      requestId,
      type: 'tool',
      tool: { callId: 'c', name: 'n', arguments: { a: 1 } },
    });
    expect(readRequest({ requestId, type: 'prepare_reply', prepareReply: { id: 'u' } })).toEqual({
      requestId,
      type: 'prepare_reply',
      prepareReply: { id: 'u' },
    });
    expect(
      readRequest({ requestId, type: 'interruption', interruption: { reason: 'worker_lost' } }),
    ).toEqual({ requestId, type: 'interruption', interruption: { reason: 'worker_lost' } });
  });

  it.each([
    ['an unknown type', { type: 'telepathy' }],
    [
      'an input of another modality',
      { type: 'input', input: { id: 'm', text: 't', modality: 'video' } },
    ],
    ['a transcript without role', { type: 'transcript', transcript: { id: 't', text: 'x' } }],
    ['a tool without callId', { type: 'tool', tool: { name: 'n' } }],
    ['an interruption of another reason', { type: 'interruption', interruption: { reason: 'x' } }],
  ])('refuses %s with invalid_request', (_what, fields) => {
    expect(refusal(() => readRequest({ requestId, ...fields })).code).toBe('invalid_request');
  });

  it('checks the shapes of input decisions and prepared replies', () => {
    expect(resultValue('input', { action: 'handled', extra: 1 })).toEqual({ action: 'handled' });
    expect(resultValue('input', { action: 'reply', text: 'Hi' })).toEqual({
      action: 'reply',
      text: 'Hi',
    });
    expect(resultValue('prepare_reply', { instructions: 'be brief' })).toEqual({
      instructions: 'be brief',
    });
    expect(resultValue('transcript', { anything: true })).toBeNull();
    expect(resultValue('interruption', undefined)).toBeNull();
    for (const [type, value] of [
      ['input', undefined],
      ['input', { action: 'shout' }],
      ['input', { action: 'reply' }],
      ['input', { action: 'reply', text: 'x', instructions: 3 }],
      ['prepare_reply', {}],
    ] as const) {
      expect(refusal(() => resultValue(type, value)).code).toBe('invalid_result');
    }
  });

  it('sends a thrown error as handler_error with its message, clipped', () => {
    expect(wireError(new Error('no courier'))).toEqual({
      code: 'handler_error',
      message: 'no courier',
    });
    expect(wireError('plain string')).toEqual({ code: 'handler_error', message: 'plain string' });
    expect(wireError(new ApplicationError({ code: 'unknown_call', message: 'gone' }))).toEqual({
      code: 'unknown_call',
      message: 'gone',
    });
    expect(wireError(new Error('m'.repeat(10_000))).message).toHaveLength(2_000);
  });
});

describe('RequestLedger', () => {
  const sink: ResultSink = { send: async () => true, open: true };

  it('forgets finished entries oldest first past its bound, never running ones', () => {
    const ledger = new RequestLedger({ maxEntries: 2 });
    const running = ledger.start('r', 'a', sink);
    const done = ledger.start('r', 'b', sink);
    done.state = 'done';
    ledger.start('r', 'c', sink);
    expect(ledger.size).toBe(2);
    expect(ledger.get('r', 'a')).toBe(running);
    expect(ledger.get('r', 'b')).toBeUndefined();
    expect(ledger.get('other-room', 'a')).toBeUndefined();
  });
});

/**
 * The envelope rules every body obeys before it is sent and after it is received: values
 * are JSON (an `undefined` result becomes `null`, anything JSON would silently mangle is
 * refused), and the JSON text is at most {@link ENVELOPE_MAX_CHARS} characters.
 */

import { ApplicationError } from './errors.ts';
import { ENVELOPE_MAX_CHARS, type JsonValue } from './protocol.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID in its canonical text form (the protocol's `requestId`).
 *
 * @example
 * ```ts
 * isUuid(crypto.randomUUID()); // true
 * ```
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function refuse(path: string, what: string): never {
  throw new ApplicationError({
    code: 'invalid_result',
    message: `the value is not JSON-serializable: ${path} is ${what}`,
  });
}

function convert(value: unknown, path: string, seen: Set<object>): JsonValue | undefined {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      // JSON.stringify turns these into null: a silent change of meaning, so refuse.
      return Number.isFinite(value) ? value : refuse(path, String(value));
    case 'bigint':
      return refuse(path, 'a bigint');
    case 'symbol':
      return refuse(path, 'a symbol');
    case 'function':
      return refuse(path, 'a function');
  }
  if (value === null) return null;
  const object = value as object;
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // Dates and other values that define their own JSON form (as JSON.stringify honours).
    return convert(toJSON.call(object, ''), path, seen);
  }
  if (seen.has(object)) refuse(path, 'a circular reference');
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      return object.map((item, index) => convert(item, `${path}[${index}]`, seen) ?? null);
    }
    if (!isPlainObject(object)) {
      const name = (object as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return refuse(path, `a ${name}, not a plain object`);
    }
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(object)) {
      const converted = convert(item, `${path}.${key}`, seen);
      // As in JSON.stringify, a property holding undefined is left out.
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

/**
 * The JSON value a handler's `value` travels as: `undefined` becomes `null`; plain objects,
 * arrays, strings, finite numbers, booleans, null and objects with `toJSON` (a `Date`) pass;
 * a function, symbol, bigint, `NaN`, `Infinity`, a `Map`, a class instance or a cycle
 * throws an {@link ApplicationError} with code `invalid_result` naming the path.
 *
 * @example
 * ```ts
 * toJsonValue(undefined); // null
 * toJsonValue({ at: new Date(0), skip: undefined }); // { at: '1970-01-01T00:00:00.000Z' }
 * toJsonValue({ n: 10n }); // throws ApplicationError (invalid_result): $.n is a bigint
 * ```
 */
export function toJsonValue(value: unknown): JsonValue {
  return convert(value, '$', new Set()) ?? null;
}

/**
 * The JSON text of a body, refused with `payload_too_large` when it is longer than
 * {@link ENVELOPE_MAX_CHARS} characters, so nothing oversized is ever sent.
 *
 * @example
 * ```ts
 * const text = encodeEnvelope({ requestId, type: 'result', value: null });
 * ```
 */
export function encodeEnvelope(body: object): string {
  const text = JSON.stringify(body);
  if (text.length > ENVELOPE_MAX_CHARS) {
    throw new ApplicationError({
      code: 'payload_too_large',
      message: `the message is ${text.length} characters; the limit is ${ENVELOPE_MAX_CHARS}`,
      requestId: (body as { requestId?: string }).requestId,
    });
  }
  return text;
}

/** A received body: its fields, after the envelope rules held. */
export type DecodedEnvelope = { requestId: string } & Record<string, unknown>;

/**
 * Reads a received body: at most {@link ENVELOPE_MAX_CHARS} characters (`payload_too_large`),
 * a JSON object (`invalid_request`) whose `requestId` is a UUID equal to the stream's
 * `requestId` attribute (`invalid_request`).
 *
 * @example
 * ```ts
 * const body = decodeEnvelope(await reader.readAll(), reader.info.attributes?.requestId);
 * ```
 */
export function decodeEnvelope(text: string, attributeRequestId: string | undefined) {
  const fail = (code: string, message: string): never => {
    throw new ApplicationError({ code, message, requestId: attributeRequestId });
  };
  if (text.length > ENVELOPE_MAX_CHARS) {
    fail(
      'payload_too_large',
      `the message is ${text.length} characters; the limit is ${ENVELOPE_MAX_CHARS}`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail('invalid_request', 'the message is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return fail('invalid_request', 'the message is not a JSON object');
  }
  const requestId = (body as { requestId?: unknown }).requestId;
  if (!isUuid(requestId)) return fail('invalid_request', 'the message has no UUID requestId');
  if (requestId !== attributeRequestId) {
    return fail('invalid_request', 'the requestId attribute differs from the body');
  }
  return body as DecodedEnvelope;
}

/**
 * A message short enough for an error body: a handler's error text is cut so the answer
 * itself stays far inside the envelope.
 *
 * @example
 * ```ts
 * const message = clipMessage(error.message);
 * ```
 */
export function clipMessage(text: string, maxChars = 2_000): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

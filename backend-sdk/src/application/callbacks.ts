/**
 * The callbacks: reading an `application.request` body into its typed event, and
 * turning what a handler returned into the value the worker expects.
 */

import { toJsonValue } from './envelope.ts';
import { ApplicationError } from './errors.ts';
import type {
  InputEvent,
  InterruptionEvent,
  JsonValue,
  PrepareReplyEvent,
  RequestBody,
  ToolCall,
  TranscriptEvent,
} from './protocol.ts';

type Fields = Record<string, unknown>;

function invalid(message: string): never {
  throw new ApplicationError({ code: 'invalid_request', message });
}

function object(value: unknown, what: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(`${what} is not an object`);
  }
  return value as Fields;
}

function string(fields: Fields, key: string, what: string): string {
  const value = fields[key];
  return typeof value === 'string' ? value : invalid(`${what}.${key} is not a string`);
}

function readInput(value: unknown): InputEvent {
  const input = object(value, 'input');
  const modality = input.modality;
  if (modality !== 'audio' && modality !== 'text') invalid('input.modality is not audio|text');
  return { id: string(input, 'id', 'input'), text: string(input, 'text', 'input'), modality };
}

function readTool(value: unknown): ToolCall {
  const tool = object(value, 'tool');
  return {
    callId: string(tool, 'callId', 'tool'),
    name: string(tool, 'name', 'tool'),
    arguments: (tool.arguments ?? null) as JsonValue,
  };
}

function readTranscript(value: unknown): TranscriptEvent {
  const line = object(value, 'transcript');
  const role = line.role;
  if (role !== 'user' && role !== 'agent') invalid('transcript.role is not user|agent');
  return {
    id: string(line, 'id', 'transcript'),
    role,
    text: string(line, 'text', 'transcript'),
    interrupted: line.interrupted === true,
  };
}

function readInterruption(value: unknown): InterruptionEvent {
  const interruption = object(value, 'interruption');
  if (interruption.reason !== 'worker_lost') invalid('interruption.reason is not worker_lost');
  return { reason: 'worker_lost' };
}

function readPrepareReply(value: unknown): PrepareReplyEvent {
  return { id: string(object(value, 'prepareReply'), 'id', 'prepareReply') };
}

/**
 * The typed callback of a decoded `application.request` body; `invalid_request` when its
 * `type` is unknown or its payload is malformed.
 *
 * @example
 * ```ts
 * const request = readRequest({ requestId, type: 'tool', tool: { callId, name, arguments: {} } });
 * ```
 */
export function readRequest(body: { requestId: string } & Fields): RequestBody {
  const { requestId } = body;
  switch (body.type) {
    case 'input':
      return { requestId, type: 'input', input: readInput(body.input) };
    case 'tool':
      return { requestId, type: 'tool', tool: readTool(body.tool) };
    case 'transcript':
      return { requestId, type: 'transcript', transcript: readTranscript(body.transcript) };
    case 'prepare_reply':
      return {
        requestId,
        type: 'prepare_reply',
        prepareReply: readPrepareReply(body.prepareReply),
      };
    case 'interruption':
      return { requestId, type: 'interruption', interruption: readInterruption(body.interruption) };
    default:
      return invalid(`unknown callback type ${JSON.stringify(body.type)}`);
  }
}

function invalidResult(message: string): never {
  throw new ApplicationError({ code: 'invalid_result', message });
}

function resultObject(value: unknown, what: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalidResult(`${what} is not an object`);
  }
  return value as Fields;
}

/**
 * The value sent for what a handler returned: an input decision or prepared reply of the
 * right shape, any JSON for a tool (`undefined` becomes `null`), `null` for a transcript.
 * A value of the wrong shape or not JSON-serializable throws `invalid_result`.
 *
 * @example
 * ```ts
 * resultValue('input', { action: 'reply', text: 'Your courier left.' });
 * ```
 */
export function resultValue(type: RequestBody['type'], returned: unknown): JsonValue {
  switch (type) {
    case 'tool':
      return toJsonValue(returned);
    case 'transcript':
    case 'interruption':
      return null;
    case 'input': {
      const decision = resultObject(returned, 'the input decision');
      if (decision.action === 'handled') return { action: 'handled' };
      if (decision.action !== 'reply') {
        return invalidResult('an input decision has action "handled" or "reply"');
      }
      if (typeof decision.text !== 'string') return invalidResult('a reply decision needs text');
      if (decision.instructions !== undefined && typeof decision.instructions !== 'string') {
        return invalidResult('a reply decision has string instructions or none');
      }
      return decision.instructions === undefined
        ? { action: 'reply', text: decision.text }
        : { action: 'reply', text: decision.text, instructions: decision.instructions };
    }
    case 'prepare_reply': {
      const prepared = resultObject(returned, 'the prepared reply');
      if (typeof prepared.instructions !== 'string') {
        return invalidResult('a prepared reply is {instructions: string}');
      }
      return { instructions: prepared.instructions };
    }
  }
}

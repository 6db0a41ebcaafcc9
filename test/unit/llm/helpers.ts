import { Writable } from 'node:stream';
import { pino } from 'pino';
import { LlmError } from '../../../src/llm/errors.ts';
import type { LlmEvent } from '../../../src/llm/provider.ts';
import type { Logger } from '../../../src/observability/logger.ts';

/** A debug-level pino logger whose JSON lines are kept in memory. */
export function memoryLogger(): { logger: Logger; lines: () => string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines: () => lines };
}

/** What a chat produced before it ended or failed. */
export interface ChatOutcome {
  readonly events: LlmEvent[];
  readonly error: unknown;
}

/** Reads a chat to its end, keeping the error it threw instead of throwing. */
export async function chatOutcome(stream: AsyncIterable<LlmEvent>): Promise<ChatOutcome> {
  const events: LlmEvent[] = [];
  let error: unknown;
  try {
    for await (const event of stream) events.push(event);
  } catch (thrown) {
    error = thrown;
  }
  return { events, error };
}

/** The `LlmError` an outcome ended with; fails when it ended otherwise. */
export function llmErrorOf(outcome: ChatOutcome): LlmError {
  if (!(outcome.error instanceof LlmError)) {
    throw new Error(`expected an LlmError, got ${String(outcome.error)}`, { cause: outcome.error });
  }
  return outcome.error;
}

/** Rejects when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function textOf(events: readonly LlmEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.delta : '')).join('');
}

import { pino } from 'pino';
import type { Logger } from '../../src/observability/logger.ts';

/** One log line as the service writes it, parsed. */
export type LogLine = { level: number; msg: string; request_id?: string } & Record<string, unknown>;

/** A debug-level logger whose lines are kept, parsed, in `lines`. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  return { logger, lines };
}

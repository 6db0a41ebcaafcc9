import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * The service logger: JSON lines on stdout. Credentials never reach it: request logs carry
 * the route pattern, never the query string or headers, and these paths are redacted as a
 * second line of defence.
 */
export function createLogger(level: string, name = 'api'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'authorization',
        'headers.authorization',
        '*.authorization',
        'token',
        '*.token',
        'key',
        '*.key',
        'apiKey',
        '*.apiKey',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}

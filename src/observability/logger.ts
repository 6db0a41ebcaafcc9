import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** `json`: one JSON object a line (machines); `pretty`: readable lines (a person's terminal). */
export type LogFormat = 'json' | 'pretty';

/** Pretty when stdout is a terminal, JSON otherwise, unless `LOG_FORMAT` says. */
export function resolveLogFormat(configured: 'auto' | LogFormat): LogFormat {
  if (configured !== 'auto') return configured;
  return process.stdout.isTTY ? 'pretty' : 'json';
}

/**
 * The service logger: JSON lines on stdout (readable lines on a terminal). Credentials never reach it: request logs carry
 * the route pattern, never the query string or headers, and these paths are redacted as a
 * second line of defence.
 */
export function createLogger(level: string, name = 'api', format: LogFormat = 'json'): Logger {
  const destination: DestinationStream | undefined =
    format === 'pretty'
      ? pretty({
          colorize: true,
          sync: true,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname,service',
          messageKey: 'msg',
          singleLine: true,
        })
      : undefined;
  const options = {
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
  };
  return destination ? pino(options, destination) : pino(options);
}

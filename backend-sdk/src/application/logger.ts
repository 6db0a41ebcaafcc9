/**
 * Where the library reports what it refused or could not deliver. The shape is pino's
 * (`logger.warn(fields, message)`), so a pino logger fits as is. Fields name participants,
 * topics, request ids and codes, never a token or a message body.
 */
export interface ApplicationLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

/**
 * The logger used when none is given: warnings to `console.warn`, one line each.
 *
 * @example
 * ```ts
 * await ApplicationConnection.join(control, handlers, { logger: pino() }); // or consoleLogger
 * ```
 */
export const consoleLogger: ApplicationLogger = {
  warn(fields, message) {
    console.warn(`[backend-sdk] ${message} ${JSON.stringify(fields)}`);
  },
};

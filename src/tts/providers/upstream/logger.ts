/**
 * The logging an upstream adapter needs; a pino logger satisfies it. Entries never carry
 * an API key: adapters log the provider name, status, vendor status code and the
 * upstream request id only.
 */
export interface UpstreamLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  debug?(fields: Record<string, unknown>, message: string): void;
}

import path from 'node:path';

/** The committed OpenAPI document (`npm run openapi:write`). */
export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../docs/openapi.json');

/** The committed form of the document: two-space indented JSON and a final newline. */
export function serializeOpenApiDocument(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/** The committed OpenAPI document (`npm run openapi:write`). */
export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../docs/openapi.json');

/** The server library's types of the document, generated from it (`npm run openapi:write`). */
export const SDK_TYPES_FILE = path.resolve(
  import.meta.dirname,
  '../backend-sdk/src/generated/openapi.ts',
);

/** The committed form of the document: two-space indented JSON and a final newline. */
export function serializeOpenApiDocument(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * The TypeScript types of the document (`paths`, `operations`, `components`), as
 * openapi-typescript writes them for any integrator, and as the server library uses them.
 */
export async function openApiTypes(documentText: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(documentText), { silent: true });
  return `${COMMENT_HEADER}// Generated from docs/openapi.json by \`npm run openapi:write\`.\n\n${astToString(ast)}`;
}

// The server library's resource types are generated from docs/openapi.json (openapi-typescript,
// `npm run openapi:write`); this fails when the committed generation is stale. The
// hand-written types that remain are checked against it at compile time (types-drift.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiTypes, SDK_TYPES_FILE } from '../../../scripts/openapi-file.ts';

describe('the server library types', () => {
  it('backend-sdk/src/generated/openapi.ts is what docs/openapi.json generates', async () => {
    const generated = await openApiTypes(readFileSync(OPENAPI_FILE, 'utf8'));
    expect(readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(generated);
  }, 60_000);
});

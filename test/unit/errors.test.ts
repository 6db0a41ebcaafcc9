import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CODES, errorBody } from '../../src/errors.ts';

const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

describe('error registry', () => {
  it('documents every code with its status and retryability in docs/errors.md', () => {
    const rows = new Map<string, { status: number; retryable: string }>();
    for (const match of docs.matchAll(/^\| `([a-z_]+)`\s*\| (\d{3})\s*\| ([^|]+?)\s*\|/gm)) {
      rows.set(match[1]!, { status: Number(match[2]), retryable: match[3]!.trim() });
    }
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      const row = rows.get(code);
      expect(row, `docs/errors.md lacks ${code}`).toBeDefined();
      expect(row?.status, code).toBe(entry.status);
      if (code !== 'provider_error') {
        expect(row?.retryable, code).toBe(entry.retryable ? 'yes' : 'no');
      }
    }
    expect([...rows.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('builds the spec error object', () => {
    const error = new ApiError('provider_error', 'failed', { retryable: true });
    expect(errorBody(error, 'r1')).toEqual({
      event: 'error',
      request_id: 'r1',
      code: 'provider_error',
      retryable: true,
      detail: 'failed',
    });
    expect(error.status).toBe(502);
  });
});

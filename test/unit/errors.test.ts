import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  bodyTooLargeError,
  ERROR_CODES,
  type ErrorCode,
  errorBody,
  INVALID_REQUEST_STATUS,
  unsupportedMediaTypeError,
} from '../../src/errors.ts';

const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/**
 * The spec's error table (shared/spec/interface.md, "Errors"), row by row: HTTP status
 * (undefined where the spec says "not stated") and retry (`false` for "no", undefined where
 * it depends on the error's `retryable`). The unpublished-Agent 409 has no code in the spec.
 */
const SPEC_ERRORS: { status: number | undefined; code: string | undefined; retry?: false }[] = [
  { status: 401, code: 'unauthorized', retry: false },
  { status: 402, code: 'insufficient_credit', retry: false },
  { status: 403, code: 'organization_suspended', retry: false },
  { status: 403, code: 'capability_disabled', retry: false },
  { status: 503, code: 'organization_account_missing', retry: false },
  { status: 403, code: 'session_token_agent_mismatch', retry: false },
  { status: 409, code: 'agent_not_api_ready', retry: false },
  { status: 409, code: undefined, retry: false },
  { status: 400, code: 'memory_identity_required', retry: false },
  { status: 400, code: 'documents_identity_required', retry: false },
  { status: 400, code: 'calendar_identity_required', retry: false },
  { status: undefined, code: 'invalid_request', retry: false },
  { status: undefined, code: 'provider_auth_missing', retry: false },
  { status: undefined, code: 'provider_unavailable' },
  { status: undefined, code: 'provider_error' },
];
const SPEC_CODES = SPEC_ERRORS.flatMap((row) => (row.code ? [row.code] : []));

/** The rows of the markdown table under `heading` (up to the next heading of any level). */
function tableRows(heading: string): string[][] {
  const start = docs.indexOf(`\n${heading}\n`);
  expect(start, `docs/errors.md lacks "${heading}"`).toBeGreaterThan(-1);
  const section = docs.slice(start + heading.length + 2).split(/\n#/)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

function fallbackOf(code: ErrorCode): string | undefined {
  const entry = ERROR_CODES[code];
  return 'fallback' in entry ? entry.fallback : undefined;
}

describe('error registry', () => {
  it('has every code of the spec, with its stated status and retry, and no fallback', () => {
    for (const row of SPEC_ERRORS) {
      if (row.code === undefined) {
        // The spec's code-less 409 for an unpublished Agent is an extension at that status.
        expect(ERROR_CODES.agent_not_published.status).toBe(row.status);
        continue;
      }
      const entry = ERROR_CODES[row.code as ErrorCode];
      expect(entry, row.code).toBeDefined();
      if (row.status !== undefined) expect(entry.status, row.code).toBe(row.status);
      if (row.retry === false) expect(entry.retryable, row.code).toBe(false);
      expect(fallbackOf(row.code as ErrorCode), row.code).toBeUndefined();
    }
  });

  it('gives every other code (an extension) a fallback among the spec codes', () => {
    const extensions = Object.keys(ERROR_CODES).filter((code) => !SPEC_CODES.includes(code));
    expect(extensions.sort()).toEqual([
      'agent_not_published',
      'conflict',
      'forbidden',
      'internal_error',
      'method_not_allowed',
      'not_found',
      'rate_limited',
      'service_unavailable',
      'voice_not_found',
    ]);
    for (const code of extensions as ErrorCode[]) {
      expect(SPEC_CODES, code).toContain(fallbackOf(code));
    }
  });

  it('documents the spec codes and the extensions with their fallbacks in docs/errors.md', () => {
    const spec = tableRows("## The spec's codes");
    expect(spec.map((row) => unquote(row[0]!)).sort()).toEqual([...SPEC_CODES].sort());
    const extensions = tableRows('## Extensions');
    expect(extensions.map((row) => unquote(row[0]!)).sort()).toEqual(
      Object.keys(ERROR_CODES)
        .filter((code) => !SPEC_CODES.includes(code))
        .sort(),
    );
    for (const [cell, status, retryable, ...rest] of [...spec, ...extensions]) {
      const code = unquote(cell!) as ErrorCode;
      const entry = ERROR_CODES[code];
      expect(Number(status), code).toBe(entry.status);
      if (code !== 'provider_error') {
        expect(retryable, code).toBe(entry.retryable ? 'yes' : 'no');
      }
      const fallback = fallbackOf(code);
      if (fallback !== undefined) expect(rest[0], code).toBe(`\`${fallback}\``);
    }
  });

  it('documents a status for each condition of invalid_request: 400, 413 and 415', () => {
    const statuses = tableRows('### `invalid_request`: conditions and statuses').map(
      (row) => row[1],
    );
    expect(new Set(statuses.filter((s) => /^\d{3}$/.test(s!)))).toEqual(
      new Set(['400', ...Object.values(INVALID_REQUEST_STATUS).map(String)]),
    );
    expect(bodyTooLargeError('big')).toMatchObject({ code: 'invalid_request', status: 413 });
    expect(unsupportedMediaTypeError('xml')).toMatchObject({
      code: 'invalid_request',
      status: 415,
    });
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

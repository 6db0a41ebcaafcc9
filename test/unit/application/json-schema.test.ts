import { describe, expect, it } from 'vitest';
import { toolParametersProblem } from '../../../src/application/json-schema.ts';

describe('toolParametersProblem', () => {
  it('checks every keyword of the 2020-12 meta-schema, not only the common ones', () => {
    expect(toolParametersProblem({ type: 'object', dependentRequired: { a: 'b' } })).toEqual({
      path: ['dependentRequired', 'a'],
      message: 'must be array',
    });
  });

  it('refuses a draft 4-7 tuple: 2020-12 spells it prefixItems', () => {
    expect(
      toolParametersProblem({
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }] } },
      }),
    ).toEqual({
      path: ['properties', 'pair', 'items'],
      message: 'must be a JSON Schema (an object or a boolean)',
    });
  });

  it('reads a schema naming another draft as 2020-12 and allows unknown formats', () => {
    expect(
      toolParametersProblem({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { when: { type: 'string', format: 'local-time-ish' } },
      }),
    ).toBeUndefined();
  });

  it('names the pattern that is not a regular expression', () => {
    expect(
      toolParametersProblem({ type: 'object', patternProperties: { '(': { type: 'string' } } }),
    ).toEqual({ path: ['patternProperties', '('], message: 'must be a valid regular expression' });
  });
});

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

/**
 * The check of a tool's `parameters`: a JSON Schema (draft 2020-12) describing an object of
 * arguments. Language-model vendors refuse a malformed tool schema at the first turn, long
 * after the start answered; checking here turns that into a `400` at the start.
 *
 * Ajv checks the schema against the 2020-12 meta-schema, then compiles it once, which
 * resolves every `$ref` and every regular expression. Unknown keywords and formats are
 * allowed, as JSON Schema allows them. A root `$schema` is ignored: tools are always read
 * as 2020-12, whichever draft a generator names.
 */

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];
/** Deepest JSON nesting accepted, so neither walk nor compilation recurses without bound. */
const MAX_NESTING = 64;

/**
 * The wording of a meta-schema failure, by the schema keyword it is about. Keywords not
 * listed keep Ajv's own message.
 */
const KEYWORD_MESSAGES: Readonly<Record<string, string>> = {
  type: `must be one of ${TYPES.join(', ')} (or an array of them)`,
  required: 'must be an array of property names',
  enum: 'must be an array',
  multipleOf: 'must be a number above 0',
  uniqueItems: 'must be a boolean',
  ...Object.fromEntries(
    ['title', 'description', 'format', '$id', '$comment', 'pattern'].map((k) => [
      k,
      'must be a string',
    ]),
  ),
  ...Object.fromEntries(
    ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((k) => [
      k,
      'must be a number',
    ]),
  ),
  ...Object.fromEntries(
    [
      'minLength',
      'maxLength',
      'minItems',
      'maxItems',
      'minProperties',
      'maxProperties',
      'minContains',
      'maxContains',
    ].map((k) => [k, 'must be a non-negative integer']),
  ),
};

/** One problem found in a schema: where (a path under the schema) and what. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
}

// One instance for the process: the meta-schema is compiled once. Tool schemas are never
// added to its registry (`addUsedSchema: false`) and leave its cache after their check.
const ajv = new Ajv2020({
  strict: false,
  logger: false,
  addUsedSchema: false,
  validateFormats: false,
});

/**
 * The first problem of a tool's `parameters` schema, or undefined when it is usable: an
 * object schema (`type: "object"`) valid against the 2020-12 meta-schema whose `$ref`s
 * resolve inside it and whose patterns are regular expressions.
 */
export function toolParametersProblem(schema: Record<string, unknown>): SchemaProblem | undefined {
  if (schema.type !== 'object') {
    return { path: ['type'], message: 'must be "object" (the arguments are an object)' };
  }
  const tooDeep = nestingProblem(schema, [], 0);
  if (tooDeep) return tooDeep;
  const { $schema: _draft, ...checked } = schema;
  if (!ajv.validateSchema(checked)) return metaSchemaProblem(ajv.errors ?? []);
  return compileProblem(checked);
}

function nestingProblem(
  value: unknown,
  path: (string | number)[],
  depth: number,
): SchemaProblem | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_NESTING) return { path, message: `nests deeper than ${MAX_NESTING} levels` };
  for (const [key, entry] of Object.entries(value)) {
    const problem = nestingProblem(
      entry,
      [...path, Array.isArray(value) ? Number(key) : key],
      depth + 1,
    );
    if (problem) return problem;
  }
  return undefined;
}

/** The first of Ajv's meta-schema errors, in the words of {@link KEYWORD_MESSAGES}. */
function metaSchemaProblem(errors: ErrorObject[]): SchemaProblem {
  // Ajv lists an `anyOf`'s branches before the `anyOf` itself; all share the location.
  const first = errors[0];
  if (first === undefined) return { path: [], message: 'must be a JSON Schema' };
  const path = pointerPath(first.instancePath);
  const expected = first.params.type;
  if (first.keyword === 'type' && Array.isArray(expected) && expected.includes('boolean')) {
    return { path, message: 'must be a JSON Schema (an object or a boolean)' };
  }
  const keyword = path.at(-1);
  if (first.keyword === 'uniqueItems' && (keyword === 'type' || keyword === 'required')) {
    const what = keyword === 'type' ? 'a type' : 'a property name';
    return { path, message: `must not repeat ${what}` };
  }
  const known = typeof keyword === 'string' ? KEYWORD_MESSAGES[keyword] : undefined;
  return { path, message: known ?? first.message ?? 'must be a JSON Schema' };
}

/** Compiles `schema` once, which resolves its references and regular expressions. */
function compileProblem(schema: Record<string, unknown>): SchemaProblem | undefined {
  try {
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    const missingRef = (error as { missingRef?: unknown }).missingRef;
    if (typeof missingRef === 'string') {
      const at = findPath(schema, (key, value) => key === '$ref' && value === missingRef);
      return { path: at ?? [], message: `points to nothing in the schema (${missingRef})` };
    }
    if (error instanceof SyntaxError) {
      const at = findPath(schema, (key, value) => key === 'pattern' && !isRegExp(value));
      return { path: at ?? [], message: 'must be a valid regular expression' };
    }
    return { path: [], message: `cannot be compiled (${(error as Error).message})` };
  } finally {
    ajv.removeSchema(schema);
  }
}

function isRegExp(source: unknown): boolean {
  if (typeof source !== 'string') return true;
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The path of the first entry `matches` accepts, where `patternProperties` names count as
 * `pattern` entries. For locating what the compiler refused.
 */
function findPath(
  value: unknown,
  matches: (key: string, value: unknown) => boolean,
  path: (string | number)[] = [],
): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, entry] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (matches(key, entry)) return at;
    if (path.at(-1) === 'patternProperties' && matches('pattern', key)) return at;
    const found = findPath(entry, matches, at);
    if (found) return found;
  }
  return undefined;
}

/** A JSON pointer (`/properties/a`) as path segments. */
function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      const name = token.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(name) ? Number(name) : name;
    });
}

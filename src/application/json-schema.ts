/**
 * The check of a tool's `parameters`: a JSON Schema (draft 2020-12 keywords) describing an
 * object of arguments. Language-model vendors refuse a malformed tool schema at the first
 * turn, long after the start answered; checking here turns that into a `400` at the start.
 *
 * Written by hand because no JSON Schema validator is a dependency of the service: only the
 * shape of the keywords models use is checked (types, nesting, local `$ref` targets);
 * unknown keywords are allowed, as JSON Schema allows them.
 */

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;
/** Keywords whose value is a non-empty array of schemas. */
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const COUNT_KEYWORDS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;
const STRING_KEYWORDS = ['title', 'description', 'format', '$id', '$comment'] as const;
const MAX_DEPTH = 32;

/** One problem found in a schema: where (a path under the schema) and what. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The first problem of a tool's `parameters` schema, or undefined when it is usable: an
 * object schema (`type: "object"`) whose keywords are well formed and whose local `$ref`s
 * point inside it.
 */
export function toolParametersProblem(schema: Record<string, unknown>): SchemaProblem | undefined {
  if (schema.type !== 'object') {
    return { path: ['type'], message: 'must be "object" (the arguments are an object)' };
  }
  return schemaProblem(schema, [], schema, 0);
}

function schemaProblem(
  schema: unknown,
  path: (string | number)[],
  root: Record<string, unknown>,
  depth: number,
): SchemaProblem | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isObject(schema)) return { path, message: 'must be a JSON Schema (an object or a boolean)' };
  if (depth > MAX_DEPTH) return { path, message: `nests deeper than ${MAX_DEPTH} levels` };
  const at = (...rest: (string | number)[]) => [...path, ...rest];

  if ('type' in schema) {
    const { type } = schema;
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0) return { path: at('type'), message: 'must name at least one type' };
    for (const entry of list) {
      if (typeof entry !== 'string' || !TYPES.has(entry)) {
        return {
          path: at('type'),
          message: `must be one of ${[...TYPES].join(', ')} (or an array of them)`,
        };
      }
    }
    if (new Set(list).size !== list.length) {
      return { path: at('type'), message: 'must not repeat a type' };
    }
  }
  for (const keyword of STRING_KEYWORDS) {
    if (keyword in schema && typeof schema[keyword] !== 'string') {
      return { path: at(keyword), message: 'must be a string' };
    }
  }
  if ('pattern' in schema) {
    const problem = patternProblem(schema.pattern);
    if (problem) return { path: at('pattern'), message: problem };
  }
  for (const keyword of NUMBER_KEYWORDS) {
    if (keyword in schema && typeof schema[keyword] !== 'number') {
      return { path: at(keyword), message: 'must be a number' };
    }
  }
  if ('multipleOf' in schema) {
    const value = schema.multipleOf;
    if (typeof value !== 'number' || !(value > 0)) {
      return { path: at('multipleOf'), message: 'must be a number above 0' };
    }
  }
  for (const keyword of COUNT_KEYWORDS) {
    if (keyword in schema) {
      const value = schema[keyword];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        return { path: at(keyword), message: 'must be a non-negative integer' };
      }
    }
  }
  if ('uniqueItems' in schema && typeof schema.uniqueItems !== 'boolean') {
    return { path: at('uniqueItems'), message: 'must be a boolean' };
  }
  if ('required' in schema) {
    const { required } = schema;
    if (!Array.isArray(required) || required.some((name) => typeof name !== 'string')) {
      return { path: at('required'), message: 'must be an array of property names' };
    }
    if (new Set(required).size !== required.length) {
      return { path: at('required'), message: 'must not repeat a property name' };
    }
  }
  if ('enum' in schema && (!Array.isArray(schema.enum) || schema.enum.length === 0)) {
    return { path: at('enum'), message: 'must be a non-empty array' };
  }
  if ('$ref' in schema) {
    const problem = refProblem(schema.$ref, root);
    if (problem) return { path: at('$ref'), message: problem };
  }

  for (const keyword of SCHEMA_KEYWORDS) {
    if (!(keyword in schema)) continue;
    const value = schema[keyword];
    // Draft 4-7 `items` may still be a list of schemas; models accept both.
    if (keyword === 'items' && Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        const problem = schemaProblem(item, at(keyword, index), root, depth + 1);
        if (problem) return problem;
      }
      continue;
    }
    const problem = schemaProblem(value, at(keyword), root, depth + 1);
    if (problem) return problem;
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    if (!(keyword in schema)) continue;
    const value = schema[keyword];
    if (!isObject(value)) {
      return { path: at(keyword), message: 'must be an object of schemas' };
    }
    for (const [name, entry] of Object.entries(value)) {
      if (keyword === 'patternProperties') {
        const problem = patternProblem(name);
        if (problem) return { path: at(keyword, name), message: problem };
      }
      const problem = schemaProblem(entry, at(keyword, name), root, depth + 1);
      if (problem) return problem;
    }
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    if (!(keyword in schema)) continue;
    const value = schema[keyword];
    if (!Array.isArray(value) || value.length === 0) {
      return { path: at(keyword), message: 'must be a non-empty array of schemas' };
    }
    for (const [index, entry] of value.entries()) {
      const problem = schemaProblem(entry, at(keyword, index), root, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'must be a string';
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch {
    return 'must be a valid regular expression';
  }
}

/** Local references (`#` or `#/json/pointer`) must resolve inside the schema. */
function refProblem(ref: unknown, root: Record<string, unknown>): string | undefined {
  if (typeof ref !== 'string') return 'must be a string';
  if (!ref.startsWith('#')) return 'must be a local reference ("#/$defs/...")';
  if (ref === '#') return undefined;
  if (!ref.startsWith('#/')) return 'must be a JSON pointer ("#/$defs/...")';
  let target: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return `is not a valid JSON pointer (${ref})`;
    }
    if (Array.isArray(target) && /^\d+$/.test(token)) target = target[Number(token)];
    else if (isObject(target) && Object.hasOwn(target, token)) target = target[token];
    else return `points to nothing in the schema (${ref})`;
  }
  if (!isObject(target) && typeof target !== 'boolean') {
    return `must point to a schema (${ref})`;
  }
  return undefined;
}

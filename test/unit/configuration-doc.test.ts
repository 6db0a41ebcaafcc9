import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configSchema } from '../../src/app/config.ts';
import { sttConfigSchema } from '../../src/stt/config.ts';
import { workerConfigSchema } from '../../worker/config.ts';

/** docs/configuration.md, checked against the schemas every process validates its environment with. */

interface DocumentedRow {
  names: string[];
  defaults: string;
}

const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');

function documentedRows(): DocumentedRow[] {
  return doc
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [nameCell = '', defaultCell = ''] = line.split(' | ');
      const names = [...nameCell.matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1] ?? '');
      return { names, defaults: defaultCell.trim() };
    });
}

const schemas: z.ZodObject[] = [configSchema, workerConfigSchema, sttConfigSchema];
const shapes = schemas.map((schema) => schema.shape as Record<string, z.ZodType>);
const variables = new Set(shapes.flatMap((shape) => Object.keys(shape)));

function schemaDefault(name: string): unknown {
  for (const shape of shapes) {
    const field = shape[name];
    if (!field) continue;
    const parsed = field.safeParse(undefined);
    return parsed.success ? parsed.data : undefined;
  }
  return undefined;
}

/** How a default is written in the table: numbers without separators, lists comma-joined. */
function written(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    return String(value);
  }
  if (
    Array.isArray(value) &&
    value.every((item) => typeof item === 'number' || typeof item === 'string')
  ) {
    return value.join(',');
  }
  return undefined;
}

function plain(cell: string): string {
  return cell.replaceAll('`', '').trim();
}

describe('docs/configuration.md', () => {
  const rows = documentedRows();
  const documented = rows.flatMap((row) => row.names);

  it('documents every variable the schemas read, once', () => {
    const missing = [...variables].filter((name) => !documented.includes(name));
    const repeated = documented.filter((name, index) => documented.indexOf(name) !== index);
    expect(missing).toEqual([]);
    expect(repeated).toEqual([]);
  });

  it('documents no variable the schemas do not read', () => {
    expect(documented.filter((name) => !variables.has(name))).toEqual([]);
  });

  it('gives every variable a default, and the schema default where there is one', () => {
    const wrong: string[] = [];
    for (const row of rows) {
      expect(row.defaults, `${row.names.join(', ')} has no default`).not.toBe('');
      const cells = row.defaults.split(' / ');
      row.names.forEach((name, index) => {
        const expected = written(schemaDefault(name));
        if (expected === undefined) return;
        const cell = plain(cells.length === row.names.length ? (cells[index] ?? '') : row.defaults);
        if (cell !== expected && !cell.startsWith(`${expected} `))
          wrong.push(`${name}: documented "${cell}", default ${expected}`);
      });
    }
    expect(wrong).toEqual([]);
  });
});

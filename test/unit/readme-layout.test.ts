import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The README's layout section names every tracked top-level folder and every folder of src/. */

const root = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const layout = readme.slice(readme.indexOf('## Layout'));

function trackedFolders(prefix: string): string[] {
  const files = execFileSync('git', ['ls-files', '--', prefix || '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  const folders = new Set<string>();
  for (const file of files.split('\n')) {
    const rest = file.slice(prefix.length).split('/');
    if (rest.length > 1 && rest[0] && !rest[0].startsWith('.')) folders.add(rest[0]);
  }
  return [...folders].sort();
}

function named(folder: string): boolean {
  return new RegExp(`(^|[\\s(])${folder.replace(/[-/]/g, '\\$&')}/`, 'm').test(layout);
}

describe("README's layout section", () => {
  it('names every top-level folder', () => {
    expect(trackedFolders('').filter((folder) => !named(folder))).toEqual([]);
  });

  it('names every folder of the api service', () => {
    expect(trackedFolders('src/').filter((folder) => !named(folder))).toEqual([]);
  });
});

describe("README's layout section and the Agent capabilities", () => {
  it('names each Agent capability folder of src/agents/capabilities/', () => {
    const capabilities = trackedFolders('src/agents/capabilities/');
    expect(capabilities).toEqual(['calendar', 'documents', 'memory', 'websearch']);
    expect(capabilities.filter((folder) => !named(folder))).toEqual([]);
  });
});

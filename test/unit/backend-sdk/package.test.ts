// The published shape of @awp/backend-sdk: the package `exports` point at the compiled
// dist/ (built by the test global setup), which has the same public names as the source.
// The entry is resolved from the manifest, not by package name: node_modules/@awp links
// the package folder of whichever checkout installed the modules.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as source from '../../../backend-sdk/src/index.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '../../../backend-sdk');
const manifest = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
  version: string;
  type: string;
  exports: Record<string, { types: string; import: string }>;
};

describe('@awp/backend-sdk package', () => {
  it('is ESM with an exports map to compiled JavaScript and declarations', () => {
    expect(manifest.type).toBe('module');
    expect(manifest.exports['.']).toEqual({
      types: './dist/index.d.ts',
      import: './dist/index.js',
    });
    expect(existsSync(path.join(PACKAGE_DIR, 'dist/index.js'))).toBe(true);
    expect(readFileSync(path.join(PACKAGE_DIR, 'dist/index.d.ts'), 'utf8')).toContain('AwpClient');
  });

  it('exports the same names as the source, at the manifest’s version', async () => {
    const entry = pathToFileURL(path.join(PACKAGE_DIR, manifest.exports['.']!.import)).href;
    const built = (await import(entry)) as typeof source;
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    expect(built.VERSION).toBe(manifest.version);
    expect(new built.AwpClient({ apiKey: 'awp_x', baseUrl: 'http://127.0.0.1:1' }).toString()).toBe(
      'AwpClient(http://127.0.0.1:1)',
    );
  });
});

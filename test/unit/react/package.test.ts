// The published shape of @awp/react, the React bindings beside @awp/client-sdk and
// @awp/backend-sdk: its own workspace, at the client library's version, depending on
// @awp/client-sdk (never bundling it) with React as a peer; its `exports` point at the
// compiled dist/ (built by the test global setup) with the source's public names.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as source from '../../../react/src/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const PACKAGE_DIR = path.join(ROOT, 'react');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('@awp/react package', () => {
  it('is an npm workspace at the client library’s version, depending on @awp/client-sdk', () => {
    const manifest = readJson('react/package.json');
    const clientSdk = readJson('client-sdk/package.json');
    expect(readJson('package.json').workspaces).toEqual([
      'protocol',
      'backend-sdk',
      'client-sdk',
      'react',
      'dashboard',
    ]);
    expect(manifest).toMatchObject({
      name: '@awp/react',
      version: clientSdk.version,
      type: 'module',
      exports: {
        '.': { types: './dist/index.d.ts', import: './dist/index.js' },
        './package.json': './package.json',
      },
      dependencies: { '@awp/client-sdk': clientSdk.version },
      peerDependencies: { react: '>=18' },
    });
  });

  it('exports the provider and both hooks from dist/, importing the client library by name', async () => {
    const built = await import(pathToFileURL(path.join(PACKAGE_DIR, 'dist/index.js')).href);
    expect(Object.keys(built).sort()).toEqual(
      ['ConversationProvider', 'useConversation', 'useTranscription'].sort(),
    );
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    const modules = ['index.js', 'transcription.js'].map((file) =>
      readFileSync(path.join(PACKAGE_DIR, 'dist', file), 'utf8'),
    );
    expect(modules[0]).toContain("from '@awp/client-sdk'");
    expect(modules[1]).toContain("from '@awp/client-sdk/transcription'");
    // Nothing of the client library is copied in.
    for (const module of modules) expect(module).not.toMatch(/class ConversationClient|livekit/);
    expect(readFileSync(path.join(PACKAGE_DIR, 'dist/index.d.ts'), 'utf8')).toContain(
      'useTranscription',
    );
  });
});

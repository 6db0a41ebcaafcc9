// The published shape of @awp/client-sdk: the package `exports` point at the compiled dist/
// (built by the test global setup) with the source's public names, the transcription entry
// and its browser bundle stay free of livekit-client, and the capture worklet's source text
// reaches every build output unchanged (it is loaded from a blob: URL at run time).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as source from '../../../client-sdk/src/index.ts';
import * as transcriptionSource from '../../../client-sdk/src/transcription/index.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '../../../client-sdk');
const manifest = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
  version: string;
  type: string;
  exports: Record<string, { types: string; import: string }>;
};
const load = (file: string) => import(pathToFileURL(path.join(PACKAGE_DIR, file)).href);

describe('@awp/client-sdk package', () => {
  it('is ESM with an exports map to compiled JavaScript and declarations', () => {
    expect(manifest.type).toBe('module');
    expect(manifest.exports).toMatchObject({
      '.': { types: './dist/index.d.ts', import: './dist/index.js' },
      './transcription': {
        types: './dist/transcription/index.d.ts',
        import: './dist/transcription/index.js',
      },
      './package.json': './package.json',
    });
    for (const entry of Object.values(manifest.exports).filter((e) => typeof e === 'object')) {
      expect(existsSync(path.join(PACKAGE_DIR, entry.import))).toBe(true);
      expect(existsSync(path.join(PACKAGE_DIR, entry.types))).toBe(true);
    }
    // The React bindings are their own package (@awp/react), never built in here.
    expect(Object.keys(manifest.exports)).toEqual(['.', './transcription', './package.json']);
    expect(existsSync(path.join(PACKAGE_DIR, 'dist/react'))).toBe(false);
  });

  it('exports the same names as the source, at the manifest’s version', async () => {
    const built = (await load(manifest.exports['.']!.import)) as typeof source;
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    expect(built.VERSION).toBe(manifest.version);
    const transcription = (await load(
      manifest.exports['./transcription']!.import,
    )) as typeof transcriptionSource;
    expect(Object.keys(transcription).sort()).toEqual(Object.keys(transcriptionSource).sort());
    expect(Object.keys(transcription)).toContain('TranscriptionClient');
  });

  it('ships the capture worklet source unchanged in the modules and both browser bundles', async () => {
    const expected = transcriptionSource.PCM_CAPTURE_WORKLET_SOURCE;
    expect(expected).toContain('registerProcessor("awp-pcm-capture", AwpPcmCaptureProcessor)');
    for (const file of [
      'dist/index.js',
      'dist/transcription/index.js',
      'dist/browser/awp-client.js',
      'dist/browser/awp-transcription.js',
    ]) {
      const built = (await load(file)) as typeof transcriptionSource;
      expect(built.PCM_CAPTURE_WORKLET_SOURCE, file).toBe(expected);
      expect(typeof built.TranscriptionClient, file).toBe('function');
    }
  });

  it('keeps livekit-client out of the transcription entry and its bundle', () => {
    const bundle = readFileSync(
      path.join(PACKAGE_DIR, 'dist/browser/awp-transcription.js'),
      'utf8',
    );
    expect(bundle).not.toMatch(/livekit/i);
    expect(bundle.length).toBeLessThan(40_000);
    for (const file of ['index.js', 'transcription-client.js', 'session-run.js']) {
      const module = readFileSync(path.join(PACKAGE_DIR, 'dist/transcription', file), 'utf8');
      expect(module, file).not.toMatch(/from ['"]livekit-client['"]/);
    }
  });
});

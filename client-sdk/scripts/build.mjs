#!/usr/bin/env node
// Builds the client SDK package into client-sdk/dist/:
//   dist/*.js + *.d.ts       ESM modules and types (tsc, type-checked), the package `exports`
//   dist/protocol/           the shared protocol (@awp/protocol) the modules import, compiled in
//   dist/browser/awp-client.js   one ESM file with livekit-client inside, for a <script type=module>
//   dist/browser/awp-transcription.js   one ESM file of the transcription client alone (no LiveKit)
//   (both with the default api origin AWP_API_ORIGIN when it is set at build time)
//   dist/demo/               the demo page the api serves under /demo (development listener)
// The two bundles use esbuild through its JS API (esbuild is installed as tsx's dependency).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { shipProtocol } from '../../protocol/scripts/ship.mjs';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const DIST = path.join(PACKAGE, 'dist');
const require = createRequire(import.meta.url);

/** Compiles and bundles; throws on failure. Returns the elapsed milliseconds. */
export async function buildClientSdk({ quiet = false } = {}) {
  const started = Date.now();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  // The package (emitting dist/), then the demo page's types (no output: esbuild bundles it).
  for (const config of ['tsconfig.json', 'tsconfig.demo.json']) {
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(PACKAGE, config)], {
      cwd: PACKAGE,
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      encoding: 'utf8',
    });
    if (result.status !== 0) {
      if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      throw new Error(`the client SDK TypeScript build failed (${config}, exit ${result.status})`);
    }
  }
  shipProtocol(DIST, { quiet });
  const esbuild = await import(require.resolve('esbuild', { paths: [require.resolve('tsx')] }));
  // The deployment's production api origin, fixed in the browser bundles when given at
  // build time: clients built so default `apiOrigin` to it (src/api-origin.ts).
  const apiOrigin = process.env.AWP_API_ORIGIN;
  const define = apiOrigin ? { __AWP_API_ORIGIN__: JSON.stringify(apiOrigin) } : {};
  const common = {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    minify: true,
    legalComments: 'linked',
    logLevel: quiet ? 'error' : 'warning',
  };
  await esbuild.build({
    ...common,
    define,
    entryPoints: [path.join(PACKAGE, 'src/index.ts')],
    outfile: path.join(DIST, 'browser/awp-client.js'),
  });
  await esbuild.build({
    ...common,
    define,
    entryPoints: [path.join(PACKAGE, 'src/transcription/index.ts')],
    outfile: path.join(DIST, 'browser/awp-transcription.js'),
  });
  await esbuild.build({
    ...common,
    entryPoints: [path.join(PACKAGE, 'demo/demo.ts')],
    outfile: path.join(DIST, 'demo/demo.js'),
  });
  mkdirSync(path.join(DIST, 'demo'), { recursive: true });
  for (const file of ['index.html', 'demo.css']) {
    copyFileSync(path.join(PACKAGE, 'demo', file), path.join(DIST, 'demo', file));
  }
  return Date.now() - started;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    const ms = await buildClientSdk();
    process.stdout.write(`[client-sdk] dist/ ready in ${(ms / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`[client-sdk] ${error.message}\n`);
    process.exit(1);
  }
}
